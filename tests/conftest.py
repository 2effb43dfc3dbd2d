import fnmatch
import os
from pathlib import Path

import pytest

from table.paths import shared_data_dir


@pytest.fixture(scope="session")
def shared_data():
    """The shared data folder; tests that need it skip, saying why, when it is absent."""
    path = shared_data_dir()
    if path is None:
        pytest.skip("../shared/data not found (set RIICHI_SHARED_DATA to its path)")
    return path


@pytest.fixture(scope="session")
def classifier_calibration(tmp_path_factory):
    """What ``vision.training.quantize.classifier_batches()`` gives (the classifiers' calibration
    crops, its defaults), rendered once for the whole run however many processes run it."""
    from testkit.quantized import made_once, run_folder
    from vision.training import quantize

    return made_once(run_folder(tmp_path_factory), "classifier-calibration",
                     quantize.classifier_batches)


@pytest.fixture
def calibrated_once(monkeypatch, classifier_calibration):
    """Quantizing a classifier in this test calibrates on :func:`classifier_calibration`: the
    same crops, rendered by the first test of the run that asked."""
    from vision.training import quantize

    default = quantize.CLASSIFIER_CALIBRATION_PER_LABEL

    def batches(per_label: int = default) -> list:
        assert per_label == default, "only the default calibration is made once"
        return list(classifier_calibration)

    monkeypatch.setattr(quantize, "classifier_batches", batches)


@pytest.fixture(scope="session")
def holdout_crops(shared_data, tmp_path_factory):
    """Two held-out crops of every label (the shared art, seed 11), rendered once for the run:
    the eight-bit classifiers are each compared with their float models on them."""
    from testkit.quantized import made_once, run_folder
    from vision.synthesis.render import TileArt, render_set

    return made_once(run_folder(tmp_path_factory), "holdout-crops", lambda: render_set(
        TileArt(shared_data / "tiles" / "fluffystuff" / "Export"), 2, seed=11,
        backgrounds="holdout")[0])


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def playwright():
    """Playwright's sync API, one for the whole session: it cannot be started again while it
    runs, so a test that launches a Chromium of its own (other flags) launches it from this.
    Skips, saying why, without Debian's Chromium or Python Playwright."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found (Debian package 'chromium')")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Python Playwright is not installed (pip install playwright)")
    with sync_playwright() as p:
        yield p
        _close_chromium(None)   # while the driver still runs: the last file may be a browser's


#: The Chromium of the browser files that run one after another in a process: launched by the
#: first, kept for the next, closed (``_close_chromium``) when the next file needs none. Kept to
#: the end of the run, it held some 0.3 GB (PSS) of the run's peak while the process ran other
#: files for minutes.
_chromium: dict = {}


@pytest.fixture(scope="module")
def browser(playwright):
    """Debian's headless Chromium through Playwright, one for the browser files that follow
    each other; browser tests skip, saying why, without it."""
    b = _chromium.get("browser")
    if b is None or not b.is_connected():
        b = _chromium["browser"] = playwright.chromium.launch(executable_path=CHROMIUM,
                                                             args=CHROMIUM_ARGS)
    return b


def _close_chromium(nextitem) -> None:
    if "browser" in _chromium and (nextitem is None or "browser" not in nextitem.fixturenames):
        _chromium.pop("browser").close()


class BrowserPages:
    """Pages, each in a context of its own, that one module's tests take turns with. A page in
    a fresh context starts a renderer process, some 0.3-0.7 s of Chromium's CPU each time (a
    dashboard file opens twenty); a page given back is left on about:blank (its streams
    closed) with its cookies cleared, and its next test sets the viewport and loads its own
    server, on a port (an origin) of its own, so nothing it kept is reused."""

    def __init__(self, browser):
        self.browser = browser
        self.free: list = []

    def take(self, width: int, height: int):
        while self.free:
            page = self.free.pop()
            if not page.is_closed():
                page.set_viewport_size({"width": width, "height": height})
                return page
        context = self.browser.new_context(viewport={"width": width, "height": height})
        return context.new_page()

    def give_back(self, pages) -> None:
        for page in pages:
            if page.is_closed():        # the test closed it: its context goes too
                page.context.close()
                continue
            page.goto("about:blank")
            page.context.clear_cookies()
            self.free.append(page)

    def close(self) -> None:
        for page in self.free:
            page.context.close()
        self.free = []


@pytest.fixture(scope="module")
def browser_pages(browser):
    """A module's :class:`BrowserPages` (for an ``open_page`` fixture)."""
    pages = BrowserPages(browser)
    yield pages
    pages.close()


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
    synthetic = sys.modules.get("vision.synthesis.synthetic")
    if synthetic is not None:
        # The full-size faces (1.9 MB each, 70 MB for a set) and the felt of the tables
        # drawn (22 MB): each process that renders kept them to the end of the run, 0.1 GB
        # beside the run's peak. The sprites made from them stay (small, and what the next
        # file draws again at the same sizes); a face is read again in 25 ms if it is needed.
        synthetic.tile_face.cache_clear()
        synthetic._felt.cache_clear()
    gc.collect()
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):   # not glibc: the memory stays with the process
        pass


# `./dev test` hands whole files to its processes (pytest-xdist --dist loadfile, in the lanes
# below), and the run lasts as long as the busiest one. xdist hands them out by number of tests,
# most first, which left the long one-test films (the Tenhou stretch, the long hand, kill -9) to
# the end, when the other process had nothing left to take. Longest first instead, the short
# files fill in behind: the seconds each held its process in a run of the suite on a nearly
# quiet machine (20:00 UTC 26 Nov, RIICHI_TEST_COSTS below: the sum of its tests' "wall"), which
# counts what it waits for (Chromium, a demo's real time, a broker) as the CPU it uses. Only the
# order changes; files not named here (under 3.5 s) follow, most tests first, as before.
# Added since: test_film_reading (one process, serially, 26 Nov 23:00, load 2.5: 21-23 s) and
# test_soak (15.8 s in a whole run at load 8, half of it its real-time game; ~10 quiet).
SECONDS = {
    "test_enroll.py": 65, "test_finder.py": 57, "test_demo.py": 50,
    "test_browser_dashboard.py": 42, "test_crash.py": 34, "test_discard_timing.py": 29,
    "test_tracker_long_hand.py": 26, "test_second_opinion.py": 26,
    "test_tracker_tenhou.py": 25, "test_quantize.py": 23, "test_film_reading.py": 22,
    "test_tracker.py": 18,
    "test_round_bench.py": 15, "test_core_flow.py": 15, "test_web_tls.py": 15,
    "test_render.py": 13, "test_browser_hall_page.py": 13, "test_hall_link.py": 12,
    "test_solid_table.py": 12, "test_hall_demo.py": 11, "test_browser_hall.py": 11,
    "test_soak.py": 10,
    "test_detect.py": 9, "test_service_web.py": 8, "test_classifier.py": 8, "test_web.py": 8,
    "test_browser_round.py": 7, "test_service.py": 6, "test_web_setup.py": 5,
    "test_hall_round.py": 5, "test_hall_cli.py": 4, "test_browser_photo.py": 4,
    "test_calligraphy.py": 4, "test_architecture.py": 4, "test_buttons_cli.py": 4,
}


def _keep_freed_frames_for_reuse():
    """glibc maps a block over its mmap threshold afresh for each allocation and gives a freed
    one back to the system at once, and trims the heap's top past its trim threshold (both
    thresholds start small and follow what was freed, up to 32 MB): each full-size float
    frame the renderers make (a camera frame is 29 MB in float64, a top-down view 61 MB) was
    paged in and zeroed by the kernel again and again, 1-2 s of system time in a file that
    renders. Here blocks up to 128 MB come from the heap and what is freed stays for the next
    frame (glibc 2.36 takes a threshold above the 32 MB its manual names; one that refuses it
    keeps its own); _give_memory_back still trims the heap after each module. Not glibc: as
    it was."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        libc.mallopt(m_mmap_threshold, 128 * 2 ** 20)
        libc.mallopt(m_trim_threshold, 2 ** 30)
    except (OSError, AttributeError):
        pass


def _computing_lanes_give_way():
    """The computing lanes of the suite (below: ``Lanes``) run a little nicer than the lane
    whose files wait: its files are chains of short steps (start a service, let it replay,
    kill it; a demo's frame, then the next), each waiting on the last, and the run lasts as long
    as the longest chain; the computing lanes take whatever the cores have left."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if count > COMPUTING_LANES and worker in {f"gw{i}" for i in range(COMPUTING_LANES)}:
        os.nice(NICER)


#: How much nicer the computing lanes run than the waiting one.
NICER = 5
#: Lanes for the files that compute: one a core.
COMPUTING_LANES = 2


def pytest_configure(config):
    _keep_freed_frames_for_reuse()
    _computing_lanes_give_way()
    # Every process of the suite reads tiles on one thread (onnxruntime and OpenCV): the
    # processes keep the cores busy between them, and threads of one process waiting on each
    # other's share of a small picture cost CPU and gave nothing. The product keeps its
    # defaults (a table's service reads on the cores it has).
    import cv2

    import vision.runtime
    vision.runtime.DEFAULT_THREADS = 1
    cv2.setNumThreads(1)
    if getattr(config.option, "dist", "no") == "loadfile":
        # the order of the collection below, not xdist's by number of tests
        config.option.loadscopereorder = False
    if os.environ.get("RIICHI_TEST_COSTS"):
        config.pluginmanager.register(_Costs(os.environ["RIICHI_TEST_COSTS"]), "riichi-test-costs")


def pytest_collection_modifyitems(config, items):
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return      # one process runs every file anyway: the order it always had
    per_file: dict = {}
    for item in items:
        per_file[item.path] = per_file.get(item.path, 0) + 1
    # stable: each file's tests keep their order
    items.sort(key=lambda item: (-SECONDS.get(item.path.name, 0), -per_file[item.path]))


#: The scope under which `./dev test` hands every browser test file to one process, one after
#: another: one Chromium (`browser`), some 0.7 GB RSS with its renderers, serves them all,
#: most of whose time is waiting.
BROWSER_FILES = "test_browser_*.py"


#: Files that spend most of their time waiting, not computing: on a demo's or a game's real
#: time, on Chromium, on a broker, on services started and killed as processes, on buttons held
#: for their seconds (RIICHI_TEST_COSTS, one process, 27 Nov: some 225 s of wall time, of which
#: 70 s their own CPU and their children's). None of them loads the tile models in its own
#: process. In the order the waiting lane takes them: longest first, but test_web_tls, which
#: launches a Chromium of its own for one test, before the browser files, so that its Chromium
#: and theirs are never up at once.
WAITING = (
    "test_demo.py", "test_crash.py", "test_web_tls.py", BROWSER_FILES, "test_round_bench.py",
    "test_soak.py", "test_hall_link.py", "test_hall_demo.py", "test_buttons.py",
    "test_service.py", "test_hall_round.py", "test_buttons_cli.py", "test_service_buttons.py",
    "test_service_web.py", "test_service_faults.py", "test_check_journal.py",
    "test_web_crowd.py", "test_lights.py", "test_systemd.py",
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if getattr(config.option, "dist", "no") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Lanes(LoadFileScheduling):
        """Whole files to a process, as --dist loadfile, and the browser files together.

        With more processes than ``COMPUTING_LANES``, those past them are lanes for the files
        that wait (``WAITING``): they take those in their order, and once they are all handed
        out the smallest files left; the others take the files that compute, longest first,
        and then what waits, shortest first. Two processes keep both cores busy with what
        computes, and the waits overlap them instead of adding to them; a waiting lane holds
        no tile model, so the third process costs little memory (a fourth cost more than it
        gave: 4:01 and 2.5 GB against 3:55 and 2.0 GB, as the two waiting lanes ran out of
        waiting files and took computing ones)."""

        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return BROWSER_FILES if fnmatch.fnmatch(Path(scope).name, BROWSER_FILES) else scope

        def _assign_work_unit(self, node) -> None:
            if len(self.assigned_work) <= COMPUTING_LANES:   # no waiting lane: longest first
                super()._assign_work_unit(node)
                return
            queued = list(self.workqueue)
            waiting = sorted((s for s in queued if Path(s).name in WAITING),
                             key=lambda s: WAITING.index(Path(s).name))
            computing = [s for s in queued if Path(s).name not in WAITING]
            if int(node.gateway.id[2:]) >= COMPUTING_LANES:
                pick = waiting[0] if waiting else queued[-1]
            else:   # what waits, the short ones: the waiting lane is busy with the long ones
                pick = computing[0] if computing else waiting[-1]
            # the queue's first unit is the one the parent class hands out
            self.workqueue.move_to_end(pick, last=False)
            super()._assign_work_unit(node)

    return Lanes(config, log)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    # trylast: after pytest's own teardown has finalized the module's fixtures
    if nextitem is None or nextitem.module is not item.module:
        _close_chromium(nextitem)
        _give_memory_back()


# RIICHI_TEST_COSTS=FILE: each test's setup, call and teardown as one JSON line each in FILE
# (FILE.gw0, FILE.gw1... under pytest-xdist): CPU seconds of this process and of the children
# it waited for, wall seconds, and the memory (MB) it holds and has peaked at. For finding
# what makes the suite slow or big when the machine is shared and wall time says little.
class _Costs:
    def __init__(self, path):
        self.path = path
        self.file = None    # opened by the first test: an xdist controller runs none

    @staticmethod
    def now():
        import resource
        import time

        t = os.times()
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
        return {"cpu": t.user + t.system, "child": t.children_user + t.children_system,
                "wall": time.perf_counter(), "rss": rss,
                "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}

    def record(self, item, phase):
        import json
        import time

        before = self.now()
        yield
        after = self.now()
        if self.file is None:
            worker = os.environ.get("PYTEST_XDIST_WORKER")
            self.file = open(self.path + (f".{worker}" if worker else ""), "w")
        row = {"id": item.nodeid, "phase": phase, "rss": round(after["rss"], 1),
               "peak": round(after["peak"], 1)}
        row.update({k: round(after[k] - before[k], 3) for k in ("cpu", "child", "wall")})
        row["end"] = round(time.monotonic(), 3)   # the same clock in every process: a timeline
        self.file.write(json.dumps(row) + "\n")
        self.file.flush()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        yield from self.record(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield from self.record(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item):
        yield from self.record(item, "teardown")

