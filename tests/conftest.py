import os

import pytest

from table.paths import shared_data_dir


@pytest.fixture(scope="session")
def shared_data():
    """The shared data folder; tests that need it skip, saying why, when it is absent."""
    path = shared_data_dir()
    if path is None:
        pytest.skip("../shared/data not found (set RIICHI_SHARED_DATA to its path)")
    return path


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium through Playwright, one for the whole session; browser
    tests skip, saying why, without it."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found (Debian package 'chromium')")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Python Playwright is not installed (pip install playwright)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _give_memory_back():
    """What a test module kept for its own tests is let go once it is done, and the memory
    handed back to the system: a worker runs some 35 modules, and it kept the tile finder at
    the size of the largest picture it had read (175 MB) and glibc's freed heap (some 120
    MB) to the end. The finder is loaded again by the next module that asks for it."""
    import gc
    import sys

    learned = sys.modules.get("vision.finding.learned")
    if learned is not None:
        learned.shared_finder.cache_clear()
    gc.collect()
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):   # not glibc: the memory stays with the process
        pass


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    # trylast: after pytest's own teardown has finalized the module's fixtures
    if nextitem is None or nextitem.module is not item.module:
        _give_memory_back()
