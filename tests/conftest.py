import pytest

from referee.paths import shared_data_dir


@pytest.fixture(scope="session")
def shared_data():
    """The shared data folder; tests that need it skip, saying why, when it is absent."""
    path = shared_data_dir()
    if path is None:
        pytest.skip("../shared/data not found (set RIICHI_SHARED_DATA to its path)")
    return path
