"""The ground floor every layer imports: errors, files on disk, the JSONL reader, time, tables.

Nothing here imports anything else of orgbench, the simulator, the builders or the judges. The names below are
imported from their modules on first use, so ``from orgbench.core.errors import InputError`` (the CLI's first
import) loads no JSON reader, storage or tables.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from orgbench.core.clock import UTC as UTC, format_ts as format_ts, minutes as minutes, parse_ts as parse_ts
    from orgbench.core.errors import (ConfigError as ConfigError, EndpointError as EndpointError,
                                      FormatError as FormatError, InputError as InputError,
                                      OrgbenchError as OrgbenchError)
    from orgbench.core.jsonl import (JsonLine as JsonLine, JsonlFile as JsonlFile, read_jsonl as read_jsonl,
                                     repeated_key as repeated_key)
    from orgbench.core.exports import lazy_exports as lazy_exports
    from orgbench.core.storage import (
        MANIFEST as MANIFEST, dumps as dumps, dumps_pretty as dumps_pretty, open_binary as open_binary,
        read_bytes as read_bytes, read_json as read_json, read_text as read_text, sha256_bytes as sha256_bytes,
        sha256_file as sha256_file, staged_directory as staged_directory, verify_manifest as verify_manifest,
        write_bytes_atomic as write_bytes_atomic, write_json as write_json, write_jsonl as write_jsonl,
        write_manifest as write_manifest, write_text_atomic as write_text_atomic,
    )
    from orgbench.core.tables import (LATEX_ESCAPES as LATEX_ESCAPES, Table as Table, format_cell as format_cell,
                                      latex_escape as latex_escape, write_table as write_table)
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
