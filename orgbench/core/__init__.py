"""The ground floor every layer imports: errors, files on disk, the JSONL reader, time, tables.

Nothing here imports anything else of orgbench, the simulator, the builders or the judges.
"""

from orgbench.core.clock import UTC, format_ts, minutes, parse_ts
from orgbench.core.errors import ConfigError, EndpointError, FormatError, InputError, OrgbenchError
from orgbench.core.jsonl import JsonLine, JsonlFile, iter_jsonl, loads_jsonl, parse_jsonl, read_jsonl, read_jsonl_file, scan_jsonl
from orgbench.core.exports import lazy_exports
from orgbench.core.storage import (
    MANIFEST, dumps, dumps_pretty, open_binary, read_bytes, read_json, read_text, sha256_bytes, sha256_file, staged_directory,
    verify_manifest, write_bytes_atomic, write_json, write_jsonl, write_manifest, write_text_atomic,
)
from orgbench.core.tables import LATEX_ESCAPES, Table, format_cell, latex_escape, write_table

__all__ = [
    "LATEX_ESCAPES", "MANIFEST", "Table", "UTC", "format_cell", "latex_escape", "lazy_exports", "write_table", "ConfigError", "EndpointError", "FormatError", "InputError", "JsonLine", "JsonlFile", "OrgbenchError",
    "dumps", "dumps_pretty", "format_ts", "iter_jsonl", "loads_jsonl", "minutes", "open_binary", "parse_jsonl", "parse_ts", "read_bytes",
    "read_json", "read_jsonl", "read_jsonl_file", "read_text", "scan_jsonl", "sha256_bytes", "sha256_file",
    "staged_directory", "verify_manifest", "write_bytes_atomic", "write_json", "write_jsonl", "write_manifest",
    "write_text_atomic",
]
