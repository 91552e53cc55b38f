"""The studies that ``orgbench reproduce`` runs: cargo, groundeval, assurance.

Each study module exposes ``reproduce(out_dir, options) -> None``: it builds
what it needs as cached stages under ``options.work_dir`` and writes its
tables and figures under ``out_dir`` (for example ``results/cargo``).

The names here are imported from their modules on first use, so reading the
studies' declarations (``descriptor``, as ``orgbench list`` does) makes no options record.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from orgbench.studies.options import ReproduceOptions as ReproduceOptions
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
