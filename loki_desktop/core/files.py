"""Small file helpers shared by the tools and the stores."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder, then rename over the target.

    A reader never sees a half-written file, and a crash leaves the old content.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(data)
            tmp.flush()
            os.fsync(tmp.fileno())
        # mkstemp creates 0600: keep the bits of the file we replace (an executable
        # script stays one), and give a new file the usual 0644
        mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
