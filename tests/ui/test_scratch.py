import asyncio
from PySide6.QtWidgets import QPushButton

async def test_a(qtbot):
    b = QPushButton("x")
    qtbot.addWidget(b)
    b.show()
    await asyncio.sleep(0.05)
    fut = asyncio.get_running_loop().create_future()
    b.clicked.connect(lambda: fut.set_result(1))
    asyncio.get_running_loop().call_later(0.01, b.click)
    assert await fut == 1

async def test_b(qtbot):
    await asyncio.sleep(0.01)
