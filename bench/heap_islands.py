"""What pins glibc's main heap: the live blocks between free ones, named by their vtable.

After `malloc_trim(0)` the pages of the main heap ([heap]) that stay resident are those
holding a live block or a free chunk too small to span a page. This walks the main arena's
chunks (glibc's layout: a size word before each block, PREV_INUSE in the next one) and
counts the live blocks that sit alone between free chunks ("islands": a run of live
blocks under 4 KB with free memory on both sides), named by the symbol their first words
point to (a C++ object's vtable, a Python object's type) or else by their size. For the
soak probe (SOAK_ISLANDS=1); glibc on x86-64/arm64 only, main thread, nothing else
allocating meanwhile.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections import Counter
from pathlib import Path

ISLAND_MAX = 4096  # a run of live blocks this small between two free chunks pins its pages


class _DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


def _heap_range() -> tuple[int, int]:
    for line in Path("/proc/self/maps").read_text().splitlines():
        if line.endswith("[heap]"):
            start, end = line.split()[0].split("-")
            return int(start, 16), int(end, 16)
    raise RuntimeError("no [heap] mapping")


def _chunks(start: int, top: int) -> list[tuple[int, int, bool]]:
    """(address, size, live) of each chunk from the heap's start to its top chunk."""
    out: list[tuple[int, int, bool]] = [(0, 0, False)] * 400_000  # no growth while walking
    n = 0
    read = ctypes.c_size_t.from_address
    p = start
    while p < top and n < len(out) - 1:
        size = read(p + 8).value & ~7
        if size < 16 or p + size > top:
            break
        following = p + size
        live = following < top and bool(read(following + 8).value & 1)
        out[n] = (p, size, live)
        n += 1
        p = following
    return out[:n]


def _name(address: int, size: int, dladdr: object, names: dict[int, str]) -> str:
    """The symbol one of the block's first three words points to, else its size class."""
    for offset in (16, 24, 32):
        if offset + 8 > size:
            break
        word = ctypes.c_size_t.from_address(address + offset).value
        if word in names:
            return names[word]
        info = _DlInfo()
        if word > 4096 and dladdr(ctypes.c_void_p(word), ctypes.byref(info)) and info.dli_sname:  # type: ignore[operator]
            name = str(info.dli_sname.decode(errors="replace"))
            if "PlatformPixmap" in name:  # the three ints after the vptr (its sizes)
                ints = (ctypes.c_int.from_address(address + 24 + 4 * i).value for i in range(3))
                return f"{name} {'x'.join(map(str, ints))}"
            names[word] = name
            return name
    bucket = 1 << max(4, (size - 1).bit_length())
    return f"<= {bucket} B (no symbol)"


SAMPLES: list[str] = []  # a few unnamed islands above `sample_above`, as hex and text


def _sample(address: int, size: int) -> str:
    raw = ctypes.string_at(address + 16, min(size - 16, 64))
    text = "".join(chr(b) if 32 <= b < 127 else "." for b in raw)
    return f"{size:5d} B {raw[:32].hex(' ', 8)} |{text}|"


def _in_tcache(chunks: list[tuple[int, int, bool]]) -> int:
    """Blocks free in the thread's tcache (live to the arena, so never trimmed): their second
    word is the process's tcache key, the same random value in every such block."""
    seconds: Counter[int] = Counter()
    for address, size, live in chunks:
        if live and size <= 1040:
            seconds[ctypes.c_size_t.from_address(address + 24).value] += 1
    key = next((value for value, _n in seconds.most_common(5) if value > 1 << 48), None)
    return seconds[key] if key is not None else 0


def islands(sample_above: int = 0) -> Counter[str]:
    """Live blocks in islands of the main heap, by name: count (and '~bytes' totals)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.sbrk.restype = ctypes.c_void_p
    dladdr = ctypes.CDLL(None).dladdr
    start, _end = _heap_range()
    top = int(libc.sbrk(0))
    chunks = _chunks(start, top)
    found: Counter[str] = Counter()
    names: dict[int, str] = {}
    run: list[tuple[int, int, bool]] = []
    for chunk in chunks:
        if chunk[2]:
            run.append(chunk)
            continue
        if run and sum(size for _p, size, _l in run) < ISLAND_MAX:
            for address, size, _live in run:
                name = _name(address, size, dladdr, names)
                found[name] += 1
                wanted = sample_above and address > sample_above and "no symbol" in name
                if wanted and len(SAMPLES) < 60:
                    SAMPLES.append(_sample(address, size))
                found["~bytes"] += size
        run = []
    found["~in tcache"] = _in_tcache(chunks)
    found["~free chunks"] = sum(1 for c in chunks if not c[2])
    found["~chunks"] = len(chunks)
    return found
