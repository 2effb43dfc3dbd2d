"""Printable pages: a PDF prints the markers and the sheet at their true size; a name no
writer takes is one line, not a traceback."""
import re
import zlib

import cv2
import numpy as np
import pytest

from app.cli import main
from referee.errors import RefereeError
from vision.camera.calibration import marker_sheet
from vision.enrollment.sheet import read_sheet
from vision.printout import Page, pdf_bytes, write_pages

MM = 72 / 25.4   # points per millimetre


def pdf_pages(data: bytes) -> list[dict]:
    """Each page of a PDF written by vision.printout: its size in points and its image."""
    assert data.startswith(b"%PDF-1.4\n")
    # every object sits where the cross-reference table says, as a reader looks for it
    xref = int(re.search(rb"startxref\n(\d+)\n%%EOF\n$", data).group(1))
    entries = re.findall(rb"(\d{10}) 00000 n ", data[xref:])
    for k, offset in enumerate(entries, start=1):
        assert data[int(offset):].startswith(b"%d 0 obj\n" % k)
    objects = {int(k): body for k, body in
               re.findall(rb"(\d+) 0 obj\n(.*?)\nendobj\n", data, re.S)}
    tree = re.search(rb"/Type /Pages /Kids \[([^\]]*)\] /Count (\d+)", data)
    kids = [int(k) for k in re.findall(rb"(\d+) 0 R", tree.group(1))]
    assert len(kids) == int(tree.group(2))
    pages = []
    for kid in kids:
        body = objects[kid]
        w, h = (float(v) for v in re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", body).groups())
        image = objects[int(re.search(rb"/XObject << /Im\d+ (\d+) 0 R", body).group(1))]
        iw, ih = (int(v) for v in re.search(rb"/Width (\d+) /Height (\d+)", image).groups())
        colours = 3 if b"/DeviceRGB" in image else 1
        length = int(re.search(rb"/Length (\d+)", image).group(1))
        start = image.index(b"stream\n") + len(b"stream\n")
        pixels = np.frombuffer(zlib.decompress(image[start:start + length]), np.uint8)
        pages.append({"points": (w, h),
                      "image": pixels.reshape(ih, iw, colours) if colours == 3 else
                      pixels.reshape(ih, iw)})
    return pages


def test_a_pdf_page_is_the_paper_and_its_image_fills_it_unchanged():
    grey = np.random.default_rng(0).integers(0, 256, (60, 40), dtype=np.uint8)
    colour = np.zeros((30, 50, 3), np.uint8)
    colour[..., 2] = 200                                   # red, in OpenCV's BGR
    pages = pdf_pages(pdf_bytes([Page(grey, 210, 297), Page(colour, 297, 210)]))
    assert [p["points"] for p in pages] == [(pytest.approx(210 * MM, abs=1e-3),
                                             pytest.approx(297 * MM, abs=1e-3)),
                                            (pytest.approx(297 * MM, abs=1e-3),
                                             pytest.approx(210 * MM, abs=1e-3))]
    assert np.array_equal(pages[0]["image"], grey)
    assert pages[1]["image"].shape == (30, 50, 3)
    assert tuple(pages[1]["image"][0, 0]) == (200, 0, 0)   # red in the PDF's RGB


def test_the_marker_sheet_as_pdf_prints_its_markers_at_the_width_calibration_assumes(tmp_path,
                                                                                     capsys):
    target = tmp_path / "markers.pdf"
    assert main(["calibrate", "--sheet", str(target), "--marker-mm", "60"]) == 0
    assert "markers.pdf" in capsys.readouterr().out
    page, = pdf_pages(target.read_bytes())
    image = page["image"]
    assert np.array_equal(image, marker_sheet(60.0))
    mm_per_px = page["points"][0] / MM / image.shape[1]
    # the top-left marker's black square, measured on the page as printed
    cols = np.flatnonzero((image[: image.shape[0] // 3, : image.shape[1] // 2] < 128).sum(0) >
                          image.shape[0] // 12)
    assert (cols[-1] - cols[0] + 1) * mm_per_px == pytest.approx(60.0, abs=0.5)


def test_the_a4_enrollment_sheet_as_pdf_is_one_file_of_both_pages(tmp_path, capsys):
    target = tmp_path / "sheet.pdf"
    assert main(["enroll", "--sheet", str(target), "--paper", "a4", "--dpi", "100"]) == 0
    out = capsys.readouterr().out
    assert "A4 page 1 of 2" in out and "A4 page 2 of 2" in out
    pages = pdf_pages(target.read_bytes())
    assert len(pages) == 2
    for k, page in enumerate(pages, start=1):
        assert page["points"] == (pytest.approx(210 * MM, abs=1e-3),
                                  pytest.approx(297 * MM, abs=1e-3))
        places = read_sheet(cv2.cvtColor(page["image"], cv2.COLOR_GRAY2BGR), where=f"page {k}")
        assert places and all(p.status == "empty" for p in places)
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("command", [["calibrate", "--sheet"], ["enroll", "--sheet"]])
def test_a_sheet_name_no_writer_takes_is_one_line_naming_it(tmp_path, capsys, command):
    assert main(command + [str(tmp_path / "sheet.docx")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "sheet.docx" in err and ".pdf" in err
    assert "Traceback" not in err and not list(tmp_path.iterdir())


def test_a_sheet_in_a_folder_that_does_not_exist_is_one_line_naming_the_path(tmp_path):
    for name in ("sheet.pdf", "sheet.png"):
        with pytest.raises(RefereeError, match=f"cannot write the sheet to .*missing.*{name}"):
            write_pages(tmp_path / "missing" / name, [Page(np.zeros((4, 4), np.uint8), 1, 1)],
                        "the sheet")


def test_pages_as_images_are_one_file_each_and_a_bare_name_is_png(tmp_path):
    blank = Page(np.full((8, 6), 255, np.uint8), 210, 297)
    assert write_pages(tmp_path / "one", [blank], "x") == [tmp_path / "one.png"]
    assert write_pages(tmp_path / "two.jpg", [blank, blank], "x") == [tmp_path / "two-1.jpg",
                                                                     tmp_path / "two-2.jpg"]
    assert cv2.imread(str(tmp_path / "two-2.jpg")).shape[:2] == (8, 6)
