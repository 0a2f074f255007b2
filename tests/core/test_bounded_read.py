"""core.bounded_read: a path someone gives is read only as a regular file, under a limit.

One test per kind of path that is not a plain file (device, FIFO, socket, folder, symbolic
link loop, a file whose size lies or that grows while it is read), then the same paths
through each reader that uses the helper (images, settings, skills, MCP imports, checks).
"""

from __future__ import annotations

import errno
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from loki_desktop.core.bounded_read import FileTooBig, NotRegularFile, read_bounded
from loki_desktop.core.checks.source import read_source
from loki_desktop.core.images import ImageRefused, load_image
from loki_desktop.core.skills.loader import load_user_skills

LIMIT = 1_000_000


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.png"
    os.mkfifo(path)
    return path


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock.png"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    yield path
    server.close()


@pytest.fixture
def loop(tmp_path: Path) -> Path:
    (tmp_path / "a.png").symlink_to(tmp_path / "b.png")
    (tmp_path / "b.png").symlink_to(tmp_path / "a.png")
    return tmp_path / "a.png"


@pytest.fixture
def device_link(tmp_path: Path) -> Path:
    """What a repository can ship: `shot.png -> /dev/zero` (endless bytes, st_size 0)."""
    link = tmp_path / "shot.png"
    link.symlink_to("/dev/zero")
    return link


@pytest.mark.timeout(10)  # a FIFO opened for reading without O_NONBLOCK waits forever
def test_a_fifo_is_refused_without_waiting(fifo: Path) -> None:
    with pytest.raises(NotRegularFile):
        read_bounded(fifo, LIMIT)


@pytest.mark.timeout(10)
def test_a_device_is_refused_before_a_byte_is_read(device_link: Path) -> None:
    with pytest.raises(NotRegularFile):
        read_bounded(device_link, LIMIT)
    with pytest.raises(NotRegularFile):
        read_bounded("/dev/zero", LIMIT)


def test_a_socket_is_refused(unix_socket: Path) -> None:
    with pytest.raises(OSError, match="No such device") as raised:
        read_bounded(unix_socket, LIMIT)
    assert raised.value.errno == errno.ENXIO


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        read_bounded(tmp_path, LIMIT)


def test_a_loop_of_links_is_refused(loop: Path) -> None:
    with pytest.raises(OSError, match="Too many levels") as raised:
        read_bounded(loop, LIMIT)
    assert raised.value.errno == errno.ELOOP


def test_a_file_whose_size_says_zero_is_still_cut_at_the_limit() -> None:
    # /proc files are regular and say 0 bytes, yet hold many: the size is never trusted
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(FileTooBig) as raised:
        read_bounded("/proc/self/status", 10)
    assert raised.value.size == 11  # one byte past the limit is all that was read
    assert b"Name:" in read_bounded("/proc/self/status", LIMIT)


def test_a_growing_file_is_never_read_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "growing.log"
    path.write_bytes(b"x" * LIMIT)
    stop = threading.Event()

    def grow() -> None:
        with path.open("ab") as log:
            while not stop.is_set():
                log.write(b"y" * 65536)
                log.flush()

    writer = threading.Thread(target=grow)
    writer.start()
    try:
        while path.stat().st_size <= LIMIT:  # growing: past the limit, and more arriving
            stop.wait(0.01)
        with pytest.raises(FileTooBig) as raised:
            read_bounded(path, LIMIT)
    finally:
        stop.set()
        writer.join()
    assert raised.value.size == LIMIT + 1


def test_a_regular_file_under_the_limit_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "ok.txt"
    path.write_bytes(b"abc" * 1000)
    assert read_bounded(path, 3000) == b"abc" * 1000
    with pytest.raises(FileTooBig):
        read_bounded(path, 2999)


# --- the readers that use it ---------------------------------------------------------------


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", ["fifo", "unix_socket", "loop", "device_link"])
def test_an_image_path_that_is_no_file_is_refused_in_one_sentence(
    kind: str, request: pytest.FixtureRequest
) -> None:
    path: Path = request.getfixturevalue(kind)
    with pytest.raises(ImageRefused) as refused:
        load_image(path)
    message = str(refused.value)
    assert path.name in message
    assert "\n" not in message


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", ["fifo", "device_link"])
def test_a_checked_file_that_is_no_file_is_skipped(
    kind: str, request: pytest.FixtureRequest
) -> None:
    path: Path = request.getfixturevalue(kind)
    result = read_source(path)
    assert not hasattr(result, "data")
    assert "fichier ordinaire" in str(result)


@pytest.mark.timeout(20)
def test_a_skill_linked_to_a_device_or_a_fifo_is_named_not_waited_on(tmp_path: Path) -> None:
    folder = tmp_path / "skills"
    folder.mkdir()
    (folder / "zero.md").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe.md")
    catalogue = load_user_skills(folder)
    assert catalogue.skills == ()
    assert len(catalogue.problems) == 2
    assert all("fichier ordinaire" in problem for problem in catalogue.problems)
