"""``riichi-referee calibrate``: find the table's corner markers, check the fit, save it.

``riichi-referee calibrate --sheet markers.pdf`` writes the printable marker page
(:mod:`vision.printout`: a PDF prints at true size, an image name gives an image).
``riichi-referee calibrate IMAGE --config table.toml`` (or ``--source picamera`` for a live
frame) finds markers 0-3, fits the image -> table homography, refuses it when the
reprojection error is over ``--max-error`` pixels, and saves the calibration with the seats'
zones as ``calibration.json`` beside the config, pointed at by ``[camera] calibration``.
``--topdown OUT.png`` also writes the top-down view with the zones drawn, to check them.
A zone the table reads (a pond, a meld area, the dora) that a lamp's glare washes out is
named with a line saying how much of it, so the lamp or the camera is moved before play,
not after a hand of discards read late or not at all (:mod:`vision.finding.washed`).
"""
from __future__ import annotations

import os
from pathlib import Path

from referee.errors import RefereeError


def add_arguments(parser) -> None:
    parser.add_argument("image", nargs="?", help="a camera picture of the table with its markers")
    parser.add_argument("--source", help="take one frame from a source instead "
                                         "(picamera, cam:N, a video, a folder)")
    parser.add_argument("--config", default=os.environ.get("RIICHI_CONFIG", "table.toml"),
                        help="the table config to save into (default $RIICHI_CONFIG or "
                             "./table.toml)")
    parser.add_argument("--sheet", metavar="FILE", help="write the printable marker sheet here "
                                                        "(a .pdf prints at true size; or .png)")
    parser.add_argument("--table-mm", type=float, default=800.0,
                        help="side of the square playing area in mm (default 800)")
    parser.add_argument("--marker-mm", type=float, default=50.0,
                        help="printed marker width in mm (default 50)")
    parser.add_argument("--margin-mm", type=float, default=5.0,
                        help="from each table corner to its marker's outer corner (default 5)")
    parser.add_argument("--px-per-mm", type=float, default=None,
                        help="scale of the top-down view (default: the camera's own at the "
                             "table, from 1.23 to 2)")
    parser.add_argument("--max-error", type=float, default=2.0,
                        help="largest acceptable reprojection error in pixels (default 2)")
    parser.add_argument("--topdown", metavar="PNG", help="write the top-down view with zones")
    parser.add_argument("--dry-run", action="store_true", help="check only; save nothing")


def _first_frame(spec: str):
    from ..frames import open_source

    with open_source(spec) as source:
        for frame, _ in source:
            return frame
    raise RefereeError(f"source {spec} gave no frame")


def draw_zones(topdown, calibration):
    import cv2

    out = topdown.copy()
    s = calibration.px_per_mm
    for z in calibration.zones:
        x1, y1, x2, y2 = (int(round(v * s)) for v in z.rect)
        cv2.rectangle(out, (x1, y1), (x2, y2), (255, 0, 255), 2)
        cv2.putText(out, z.name, (x1 + 4, y1 + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                    (255, 0, 255), 2, cv2.LINE_AA)
    return out


def washed_zones(view, calibration) -> list[str]:
    """One line for each zone the table reads that a glare washes out in ``view`` (the
    calibrated top-down view) over :data:`vision.finding.washed.NOTICE_SHARE` of it or more."""
    from vision.finding.washed import noticed, zone_shares

    shares = zone_shares(view, calibration.zones, calibration.px_per_mm)
    return [f"zone {name}: {share:.0%} of it is washed out (a lamp's glare, or too much "
            f"light): the table reads tiles there late or not at all; move the lamp or turn "
            f"the camera, then calibrate again" for name, share in noticed(shares)]


def run(args) -> int:
    from vision.camera.calibration import (
        MARKER_SHEET_MM,
        TableLayout,
        calibrate,
        marker_sheet,
        save_to_config,
    )
    from vision.camera.sources import read_image, write_image
    from vision.printout import Page, write_pages

    if args.sheet:
        target, = write_pages(args.sheet, [Page(marker_sheet(args.marker_mm), *MARKER_SHEET_MM)],
                              "the marker sheet")
        print(f"marker sheet: {target} (A4 at 300 dpi; print at 100%, markers "
              f"{args.marker_mm:g} mm; ids 0-3 go top-left, top-right, bottom-right, "
              f"bottom-left with seat 0 at the bottom)")
        if not args.image and not args.source:
            return 0
    if args.image:
        image = read_image(args.image)
    elif args.source:
        image = _first_frame(args.source)
    else:
        raise RefereeError("give an IMAGE of the table, --source, or --sheet")
    layout = TableLayout(args.table_mm, args.table_mm, args.marker_mm, args.margin_mm)
    cal = calibrate(image, layout, args.px_per_mm)
    print(f"markers 0-3 found; reprojection error {cal.reprojection_px:.2f} px "
          f"(limit {args.max_error:g}); top-down view {cal.px_per_mm:.2f} px per mm")
    view = cal.warp(image)
    if args.topdown:
        write_image(args.topdown, draw_zones(view, cal), "the top-down view")
        print(f"top-down view with zones: {args.topdown}")
    if cal.reprojection_px > args.max_error:
        raise RefereeError(f"reprojection error {cal.reprojection_px:.2f} px is over "
                           f"{args.max_error:g} px: check the markers lie flat and the "
                           f"sizes given; nothing saved")
    for line in washed_zones(view, cal):
        print(line)
    if args.dry_run:
        return 0
    target = save_to_config(cal, Path(args.config))
    print(f"calibration saved: {target} ([camera] calibration in {args.config})")
    return 0
