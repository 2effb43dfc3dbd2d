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
