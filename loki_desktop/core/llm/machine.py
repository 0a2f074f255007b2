"""What this computer can hold: its memory and, where it can be read cheaply, its GPU's.

No new dependency: RAM from the OS (sysconf, or GlobalMemoryStatusEx on Windows); GPU
memory from `nvidia-smi` when it is installed (NVIDIA) or from the amdgpu driver's sysfs
file (AMD on Linux); Apple Silicon shares its RAM with the GPU. Anything else is said to be
unknown rather than guessed.
"""

from __future__ import annotations

import ctypes
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.i18n import _

GIB = 1024**3
NVIDIA_SMI_TIMEOUT_S = 3.0


@dataclass(frozen=True, slots=True)
class Machine:
    """Memory in bytes; `gpu_memory` None when it could not be read (`gpu_note` says why)."""

    ram: int | None
    gpu_memory: int | None
    gpu_name: str = ""
    unified: bool = False  # Apple Silicon: the GPU uses the RAM
    gpu_note: str = ""

    def describe(self) -> str:
        """One sentence for the first-run page."""
        ram = _("{n} Go de mémoire").format(n=_gib(self.ram)) if self.ram else _("mémoire inconnue")
        if self.unified:
            return _("{ram}, partagée avec le GPU (Apple Silicon)").format(ram=ram)
        if self.gpu_memory:
            return _("{ram} et un GPU {name} de {n} Go").format(
                ram=ram, name=self.gpu_name, n=_gib(self.gpu_memory)
            )
        return f"{ram} ; {self.gpu_note}" if self.gpu_note else ram


def read_machine() -> Machine:
    """Blocking (it may run nvidia-smi): call it off the event loop."""
    ram = _ram_bytes()
    if sys.platform == "darwin" and platform.machine() == "arm64":
        return Machine(ram, ram, "Apple Silicon", unified=True)
    nvidia = _nvidia()
    if nvidia is not None:
        return Machine(ram, nvidia[1], nvidia[0])
    amd = _amd_vram()
    if amd is not None:
        return Machine(ram, amd, "AMD")
    return Machine(
        ram,
        None,
        gpu_note=_(
            "aucun GPU lisible ici (ni nvidia-smi, ni pilote amdgpu) : les modèles "
            "tourneront sur le processeur, plus lentement"
        ),
    )


def _ram_bytes() -> int | None:
    if sys.platform == "win32":
        return _windows_ram()
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _windows_ram() -> int | None:
    class MemoryStatus(ctypes.Structure):
        _fields_ = [
            ("dwLength", ctypes.c_ulong),
            ("dwMemoryLoad", ctypes.c_ulong),
            ("ullTotalPhys", ctypes.c_ulonglong),
            ("ullAvailPhys", ctypes.c_ulonglong),
            ("ullTotalPageFile", ctypes.c_ulonglong),
            ("ullAvailPageFile", ctypes.c_ulonglong),
            ("ullTotalVirtual", ctypes.c_ulonglong),
            ("ullAvailVirtual", ctypes.c_ulonglong),
            ("ullAvailExtendedVirtual", ctypes.c_ulonglong),
        ]

    status = MemoryStatus()
    status.dwLength = ctypes.sizeof(MemoryStatus)
    windll = getattr(ctypes, "windll", None)
    if windll is None or not windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
        return None
    return int(status.ullTotalPhys)


def _nvidia() -> tuple[str, int] | None:
    """(name, memory in bytes) of the largest NVIDIA GPU, from nvidia-smi when present."""
    command = shutil.which("nvidia-smi")
    if command is None:
        return None
    try:
        result = subprocess.run(
            [command, "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=NVIDIA_SMI_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    best: tuple[str, int] | None = None
    for line in result.stdout.splitlines():
        name, _sep, mebibytes = line.rpartition(",")
        if mebibytes.strip().isdigit():
            size = int(mebibytes.strip()) * 1024**2
            if best is None or size > best[1]:
                best = (name.strip(), size)
    return best


def _amd_vram() -> int | None:
    sizes = []
    for path in Path("/sys/class/drm").glob("card*/device/mem_info_vram_total"):
        try:
            sizes.append(int(path.read_text().strip()))
        except (OSError, ValueError):
            continue
    return max(sizes) if sizes else None


def _gib(count: int | None) -> str:
    return f"{(count or 0) / GIB:.0f}"
