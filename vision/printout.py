"""Printable pages (the calibration markers, the enrollment sheet) written to a file.

A page only works printed at its true size: the calibration takes the markers' printed width
as given, and the enrollment sheet's places are cut for real tiles. An image file leaves the
size to the print dialog, which often fits it to the paper instead. So a ``.pdf`` name gets a
PDF whose pages are the paper's size in points (one file, every page), and any name OpenCV
writes (``.png``, ``.jpg``, ...) gets an image per page, as before.

The PDF is the least the format allows (a catalogue, pages, one lossless greyscale or colour
image filling each page), which is a few dozen lines and needs no library.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from referee.errors import RefereeError

from .camera.sources import write_image

POINTS_PER_MM = 72 / 25.4


@dataclass(frozen=True)
class Page:
    """One printable page: ``image`` (uint8, grey or BGR) to fill a ``width_mm`` x
    ``height_mm`` sheet of paper."""

    image: np.ndarray
    width_mm: float
    height_mm: float


def pdf_bytes(pages: Sequence[Page]) -> bytes:
    """A PDF with one page per :class:`Page`, each the paper's size, its image filling it."""
    objects: list[bytes] = []          # object k + 1's body

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")                 # filled in once the page tree's number is known
    tree = add(b"")
    kids = []
    for n, page in enumerate(pages):
        img = page.image
        if img.ndim == 3 and not (np.array_equal(img[..., 0], img[..., 1]) and
                                  np.array_equal(img[..., 1], img[..., 2])):
            space, data = b"/DeviceRGB", cv2.cvtColor(img, cv2.COLOR_BGR2RGB).tobytes()
        else:                          # grey pages (all of ours) stay a third the size
            space, data = b"/DeviceGray", (img[..., 0] if img.ndim == 3 else img).tobytes()
        h, w = img.shape[:2]
        packed = zlib.compress(data, 6)
        image = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s "
                    b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
                    % (w, h, space, len(packed)) + packed + b"\nendstream")
        pw, ph = page.width_mm * POINTS_PER_MM, page.height_mm * POINTS_PER_MM
        draw = b"q %.3f 0 0 %.3f 0 0 cm /Im%d Do Q" % (pw, ph, n)
        content = add(b"<< /Length %d >>\nstream\n" % len(draw) + draw + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.3f %.3f] "
                        b"/Resources << /XObject << /Im%d %d 0 R >> >> /Contents %d 0 R >>"
                        % (tree, pw, ph, n, image, content)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    objects[tree - 1] = (b"<< /Type /Pages /Kids [%s] /Count %d >>"
                         % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for k, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += (b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, catalog, xref))
    return bytes(out)


def write_pages(target: str | Path, pages: Sequence[Page], what: str) -> list[Path]:
    """Write ``pages`` to ``target``: one PDF holding them all when its name ends in ``.pdf``,
    else one image per page (``target`` itself for one page, ``name-1``, ``name-2``, ... beside
    it for more). ``what`` names the pages in an error. Returns the files written."""
    target = Path(target)
    if not target.suffix:
        target = target.with_suffix(".png")
    if target.suffix.lower() == ".pdf":
        try:
            target.write_bytes(pdf_bytes(pages))
        except OSError as exc:
            raise RefereeError(f"cannot write {what} to {target} ({exc.strerror})") from None
        return [target]
    if not cv2.haveImageWriter(str(target)):
        raise RefereeError(f"cannot write {what} as {target.name}: name a .pdf file "
                           "(it prints at true size), or an image (.png, .jpg)")
    files = [target] if len(pages) == 1 else [
        target.with_name(f"{target.stem}-{k}{target.suffix}") for k in range(1, len(pages) + 1)]
    for path, page in zip(files, pages):
        write_image(path, page.image, what)
    return files
