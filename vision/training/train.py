"""Train the tile classifier on rendered crops and write it as ONNX (+ its labels as JSON).

    python -m vision.training.train --out vision/models/tiles.onnx

One command, fixed seed, reproducible: it renders a pool of crops from the shared FluffyStuff art
(cached under ``runs/vision-cache`` so a rerun skips that step), trains a small CNN on them with
PyTorch on the CPU (further light augmentation on every batch), checks accuracy on a held-out
rendered set of other tables, and exports the network with the label list beside it, and its
eight-bit copy (:mod:`vision.training.quantize`), which the table runs. PyTorch
(the ``train`` extra, plus ``onnx`` for the export) is imported here and nowhere else.

By default a pool of crops has every character tile but the red 5m written in other hands and
the 1s bird drawn by symbol fonts (:mod:`vision.synthesis.calligraphy`), which needs Debian's
``fonts-noto-cjk fonts-kouzan-mouhitsu fonts-aoyagi-soseki fonts-arphic-ukai fonts-cwtex-kai
fonts-lxgw-wenkai fonts-klee fonts-symbola fonts-noto-core``; ``--fonts-per-label 0`` trains
on the art alone, as the readers before it were.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import multiprocessing
import os
import time
from pathlib import Path

import cv2
import numpy as np

from referee.errors import RefereeError
from vision.reading.classifier import (
    EMBEDDING_OUTPUT,
    INPUT_HEIGHT,
    INPUT_WIDTH,
    prepare,
)
from vision.synthesis.calligraphy import (
    BIRD_FONTS, BRUSH_FONT_DIRS, DEFAULT_FONT_DIR, DRAGON_FONTS, Calligraphy, font_files,
    labels_written)
from vision.synthesis.render import LABELS, STYLES, TileArt, render_crop

from .quantize import quantize_classifier

#: Bumped whenever render.py changes what it draws, so an old cache is not reused.
RENDER_VERSION = 8
ONNX_OPSET = 17
WIDTHS = (16, 32, 96, 192)
#: Conv blocks in each of the four stages (the first stage's reads the three colours).
BLOCKS = (1, 1, 2, 2)


def build_model(n_classes: int = len(LABELS), widths=WIDTHS, blocks=BLOCKS):
    """Four stages of 3x3 convs with batch norm (``blocks`` in each, ``widths`` channels), a
    2x2 max pool after each of the first three, global average pooling, one linear layer.

    Input is BGR 0..255 (N x 3 x 64 x 48); the scaling to about -2..2 is inside the network so
    the ONNX file takes plain pixels.
    """
    from torch import nn

    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    class Scale(nn.Module):
        def forward(self, x):
            return x * (1.0 / 64.0) - 2.0

    layers, last = [Scale()], 3
    for stage, (width, n) in enumerate(zip(widths, blocks)):
        for _ in range(n):
            layers += block(last, width)
            last = width
        if stage < 3:
            layers.append(nn.MaxPool2d(2))
    return nn.Sequential(
        *layers,
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(last, n_classes),
    )


#: The art the rendering processes draw with, set in each before it renders (see render_pool).
_POOL_ART: TileArt | None = None


def _art_for_workers(art: TileArt) -> None:
    global _POOL_ART
    _POOL_ART = art
    cv2.setNumThreads(1)   # one process per core already


def _render_chunk(job) -> tuple[np.ndarray, np.ndarray]:
    """Crops ``start`` to ``stop`` of a pool: chunk ``k``'s own generator, so a chunk is the
    same whichever process draws it and whatever number of them there are."""
    labels, start, stop, seed, k, kwargs = job
    rng = np.random.default_rng([seed, k]) if k >= 0 else np.random.default_rng(seed)
    x = np.empty((stop - start, INPUT_HEIGHT, INPUT_WIDTH, 3), np.uint8)
    y = np.empty(stop - start, np.int64)
    for j, i in enumerate(range(start, stop)):
        lab = labels[i % len(labels)]
        x[j] = prepare(render_crop(_POOL_ART, lab, rng, **kwargs))
        y[j] = LABELS.index(lab)
    return x, y


def _fonts_tag(calligraphy: Calligraphy) -> str:
    """What tells a pool written in other fonts, or with the honours, from the first font
    pools (Noto, man tiles and 中: no tag, so their cached crops keep their names)."""
    import hashlib

    if (not calligraphy.honours and not calligraphy.birds and not calligraphy.dragons
            and calligraphy.files == [str(p) for p in font_files([DEFAULT_FONT_DIR])]):
        return ""
    key = "\n".join(calligraphy.files + [f"honours={calligraphy.honours}",
                                         f"birds={len(calligraphy.birds)}"]
                    # (only when drawn: the pools before them keep their names)
                    + ([f"dragons={len(calligraphy.dragons)}"] if calligraphy.dragons else []))
    return "-" + hashlib.sha1(key.encode()).hexdigest()[:8]


def render_pool(art: TileArt, per_label: int, seed: int, backgrounds: str, cache: Path | None,
                log=print, labels: tuple[str, ...] = LABELS,
                harsh: bool = False, styles: tuple[str, ...] = STYLES,
                dark_faces: float = 0.0, hard_views: float = 0.0, chunk: int = 0,
                workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``per_label`` prepared crops of each of ``labels``, as uint8 N x H x W x 3 and int64
    indices into :data:`LABELS`; tiles drawn in the art ``styles``, a ``dark_faces`` share of
    the crops as a set with dark faces and light ink, a ``hard_views`` share as a phone sees a
    table (see :func:`vision.synthesis.render.render_crop`).

    ``chunk``: crops drawn from one generator, seeded by ``seed`` and the chunk's number, so
    ``workers`` processes draw the same pool as one does; 0 draws the whole pool from one
    generator seeded by ``seed`` (one process: the pools of models trained before chunks)."""
    which = "all" if labels == LABELS else "-".join(labels)
    only = "" if tuple(styles) == STYLES else "-" + "-".join(styles)
    written = "" if art.calligraphy is None else "-fonts" + _fonts_tag(art.calligraphy)
    written += f"-dark{dark_faces:g}" if dark_faces else ""
    written += f"-hard{hard_views:g}" if hard_views else ""
    written += f"-chars{art.smallest_print:g}" if art.smallest_print is not None else ""
    chunked = f"-c{chunk}" if chunk else ""
    name = (f"{backgrounds}{'-harsh' if harsh else ''}{written}{only}-{which}-seed{seed}-n{per_label}-"
            f"r{RENDER_VERSION}{chunked}-{INPUT_WIDTH}x{INPUT_HEIGHT}.npz")
    if cache is not None and (cache / name).is_file():
        with np.load(cache / name) as z:
            log(f"using cached crops {cache / name}")
            return z["x"], z["y"]
    n = per_label * len(labels)
    kwargs = dict(backgrounds=backgrounds, harsh=harsh, styles=styles, dark_faces=dark_faces,
                  hard_views=hard_views)
    jobs = ([(labels, a, min(n, a + chunk), seed, k, kwargs)
             for k, a in enumerate(range(0, n, chunk))] if chunk else [(labels, 0, n, seed, -1, kwargs)])
    t0 = time.monotonic()
    if workers > 1 and len(jobs) > 1:
        # spawn, not fork: a process with threads (onnxruntime's, a test runner's) can fork a
        # child holding a lock no thread will ever release, and the pool hangs (seen in the
        # suite); the art goes to each worker pickled, once
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(min(workers, len(jobs)), _art_for_workers, (art,)) as pool:
            parts = pool.map(_render_chunk, jobs, chunksize=1)
    else:
        global _POOL_ART
        _POOL_ART = art
        parts = [_render_chunk(job) for job in jobs]
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    log(f"  rendered {n} crops {name} ({time.monotonic() - t0:.0f} s)")
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez(cache / name, x=x, y=y)
    return x, y


def batch_augment(x, gen):
    """Cheap per-batch augmentation on top of the rendered pool: small affine, light, noise,
    a cut-out patch. ``x`` is float N x 3 x H x W in 0..255."""
    import torch
    import torch.nn.functional as F

    n, dev = x.shape[0], x.device
    r = lambda *s: torch.rand(*s, generator=gen, device=dev)  # noqa: E731
    ang = (r(n) - 0.5) * math.radians(12)
    scale = 1 + (r(n) - 0.5) * 0.2
    theta = torch.zeros(n, 2, 3, device=dev)
    theta[:, 0, 0] = scale * torch.cos(ang)
    theta[:, 0, 1] = -scale * torch.sin(ang)
    theta[:, 1, 0] = scale * torch.sin(ang)
    theta[:, 1, 1] = scale * torch.cos(ang)
    theta[:, :, 2] = (r(n, 2) - 0.5) * 0.12
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    gains = 1 + (r(n, 3, 1, 1) - 0.5) * 0.14
    bright = 0.75 + 0.5 * r(n, 1, 1, 1)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 0.7 + 0.6 * r(n, 1, 1, 1)
    x = ((x - mean) * contrast + mean) * gains * bright
    x = x + torch.randn(x.shape, generator=gen, device=dev) * (r(n, 1, 1, 1) * 6)
    # Cut-out: a patch the colour of the crop's mean, on a fifth of the batch.
    H, W = x.shape[2], x.shape[3]
    h = (H * (0.15 + 0.25 * r(n, 1, 1))).long()
    w = (W * (0.15 + 0.25 * r(n, 1, 1))).long()
    y0 = ((H - h) * r(n, 1, 1)).long()
    x0 = ((W - w) * r(n, 1, 1)).long()
    yy = torch.arange(H, device=dev).view(1, H, 1)
    xx = torch.arange(W, device=dev).view(1, 1, W)
    patch = (yy >= y0) & (yy < y0 + h) & (xx >= x0) & (xx < x0 + w) & (r(n, 1, 1) < 0.2)
    x = torch.where(patch[:, None], x.mean(dim=(2, 3), keepdim=True), x)
    return x.clamp(0, 255)


def accuracy(model, x: np.ndarray, y: np.ndarray, batch: int = 512) -> float:
    import torch

    model.eval()
    correct = 0
    dev = next(model.parameters()).device
    with torch.no_grad():
        for i in range(0, len(x), batch):
            xb = torch.from_numpy(x[i:i + batch]).to(dev).permute(0, 3, 1, 2).float()
            correct += int((model(xb).argmax(1).cpu().numpy() == y[i:i + batch]).sum())
    return correct / max(1, len(x))


def with_embedding(model):
    """``model`` giving ``(logits, embedding)``: the logits exactly as before, and the features
    its last layer reads (after pooling; dropout is off in inference), which tile-set
    enrollment (:mod:`vision.reading.tileset`) compares crops in."""
    from torch import nn

    class TwoOutputs(nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            e = self.net[:-1](x)
            return self.net[-1](e), e

    return TwoOutputs(model)


def export(model, out: Path, meta: dict) -> None:
    import torch

    model = model.eval().cpu().to(memory_format=torch.contiguous_format)
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, INPUT_HEIGHT, INPUT_WIDTH)
    torch.onnx.export(with_embedding(model), dummy, str(out), dynamo=False,
                      opset_version=ONNX_OPSET, input_names=["crops"],
                      output_names=["logits", EMBEDDING_OUTPUT],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"},
                                    EMBEDDING_OUTPUT: {0: "n"}})
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")


def _four(text: str, least: int, example: str) -> tuple[int, ...]:
    """Four whole numbers of ``least`` or more, comma-separated, checked before minutes of
    rendering rather than after."""
    try:
        numbers = tuple(int(w) for w in text.split(","))
    except ValueError:
        numbers = ()
    if len(numbers) != 4 or min(numbers) < least:
        raise argparse.ArgumentTypeError(f"{text!r}: expected four whole numbers from {least}, "
                                         f"like {example}")
    return numbers


def _widths(text: str) -> tuple[int, ...]:
    """``--widths``: the channels of the four conv stages."""
    return _four(text, 1, "16,32,96,192")


def _blocks(text: str) -> tuple[int, ...]:
    """``--blocks``: conv blocks in each of the four stages."""
    return _four(text, 1, "1,1,2,2")


def _share(text: str) -> float:
    try:
        share = float(text)
    except ValueError:
        share = -1.0
    if not 0 <= share <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a share from 0 to 1, like 0.25")
    return share


def _styles(text: str) -> tuple[str, ...]:
    styles = tuple(s.strip() for s in text.split(",") if s.strip())
    if not styles or any(s not in STYLES for s in styles):
        raise argparse.ArgumentTypeError(f"{text!r}: expected styles among {', '.join(STYLES)}")
    return styles


def _places(text: str, symbols=BIRD_FONTS) -> list[Path]:
    """--fonts, --bird-fonts, --dragon-fonts: font folders or files separated by os.pathsep;
    ``brush`` stands for :data:`BRUSH_FONT_DIRS`, ``symbols`` for the option's symbol fonts
    (the argument ``symbols``: :data:`BIRD_FONTS` by default)."""
    places = []
    for part in filter(None, text.split(os.pathsep)):
        places += (list(BRUSH_FONT_DIRS) if part == "brush" else list(symbols) if part == "symbols"
                   else [Path(part)])
    return places


def _dragon_places(text: str) -> list[Path]:
    """--dragon-fonts: as :func:`_places`, ``symbols`` standing for :data:`DRAGON_FONTS`."""
    return _places(text, DRAGON_FONTS)


def parser() -> argparse.ArgumentParser:
    """The command's options; their defaults make the shipped model."""
    p = argparse.ArgumentParser(prog="python -m vision.training.train", description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=Path("vision/models/tiles.onnx"),
                   help="ONNX file to write; its labels go to the .json of the same name")
    p.add_argument("--seed", type=int, default=0, help="seed of rendering, init and batches")
    p.add_argument("--per-label", type=int, default=1500, help="rendered training crops per label")
    p.add_argument("--plain-per-label", type=int, default=500,
                   help="further crops per label drawn as the art is, with the gentler camera")
    # The shipped reader writes every character tile but the red 5m in Noto and brush hands
    # and draws the 1s bird (vision/README.md, "Every character tile written in other hands").
    p.add_argument("--fonts-per-label", type=int, default=1000,
                   help="further harsh crops per man and red dragon label (every character "
                        "tile with --written-honours, the 1s with --bird-fonts, 發 with "
                        "--dragon-fonts), half with the "
                        "character written in a font (vision.synthesis.calligraphy), so the net "
                        "reads other sets' hands; 0 for none (default 1000)")
    p.add_argument("--fonts", type=_places, default=_places(f"{DEFAULT_FONT_DIR}{os.pathsep}brush"),
                   help=f"folders or files of CJK fonts for --fonts-per-label, separated by "
                        f"'{os.pathsep}'; 'brush' stands for the brush fonts Debian packs "
                        f"(vision.synthesis.calligraphy.BRUSH_FONT_DIRS) (default "
                        f"{DEFAULT_FONT_DIR}{os.pathsep}brush)")
    p.add_argument("--written-honours", action=argparse.BooleanOptionalAction, default=True,
                   help="with --fonts-per-label: write the winds and 發 too, not only the man "
                        "tiles and 中 (default: yes)")
    p.add_argument("--leave-to-art", type=lambda t: tuple(filter(None, t.split(","))), default=("0m",),
                   metavar="CODES",
                   help="with --fonts-per-label: tile codes, comma-separated, the fonts do not "
                        "write (the font pool has none of them); '' for none (default 0m: a red "
                        "five written in red characters made a red drawing a sure red five)")
    p.add_argument("--bird-fonts", type=_places, default=_places("symbols"),
                   help="with --fonts-per-label: symbol fonts (folders or files, separated "
                        f"by '{os.pathsep}') whose mahjong tile U+1F010 draws the 1s bird; "
                        "'symbols' stands for the two Debian packs "
                        "(vision.synthesis.calligraphy.BIRD_FONTS); '' for none (default symbols)")
    p.add_argument("--dragon-fonts", type=_dragon_places, default=[],
                   help="with --fonts-per-label: symbol fonts (folders or files, separated "
                        f"by '{os.pathsep}') whose dragon U+1F409 draws the picture dragons of "
                        "other sets, red and green; 'symbols' stands for Symbola "
                        "(vision.synthesis.calligraphy.DRAGON_FONTS); '' for none (default none)")
    p.add_argument("--epochs", type=int, default=18)
    p.add_argument("--font-epochs", type=int, default=0,
                   help="with --fonts-per-label: train --epochs on the art alone, then this many "
                        "epochs more with the font-written crops added, at a tenth of --lr "
                        "falling to nothing; 0 mixes them in from the start")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--label-smoothing", type=_share, default=0.05, metavar="SHARE",
                   help="the share of each crop's target spread over the other labels "
                        "(default 0.05)")
    p.add_argument("--widths", type=_widths, default=WIDTHS,
                   help="channels of the four conv stages, comma-separated (default "
                        f"{','.join(map(str, WIDTHS))})")
    p.add_argument("--blocks", type=_blocks, default=BLOCKS,
                   help="conv blocks in each of the four stages, comma-separated (default "
                        f"{','.join(map(str, BLOCKS))})")
    p.add_argument("--hard-per-label", type=int, default=0,
                   help="further harsh crops per label seen as a phone sees a table: the tile "
                        "tilted up to 45 degrees, warm or cold light, cut off-centre "
                        "(vision.synthesis.render.render_crop's hard_views); 0 for none")
    p.add_argument("--device", default="cpu",
                   help="where torch trains: cpu, or cuda where a GPU is at hand (the model "
                        "is the same recipe, not the same bits)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="processes rendering the crops (default: one per core); the crops "
                        "are the same for any number, given --render-chunk")
    p.add_argument("--render-chunk", type=int, default=0,
                   help="crops drawn from one seeded generator; chunks are rendered in "
                        "parallel and the pool is the same whatever --workers. 0: one "
                        "generator for a whole pool, in one process (models trained before "
                        "chunks)")
    p.add_argument("--render-only", action="store_true",
                   help="render the pools into --cache and stop (several trainings may then share them)")
    p.add_argument("--time-limit", type=float, default=0.0,
                   help="stop training after the epoch that passes this many seconds and "
                        "export what there is, marked in the JSON; 0 for no limit")
    p.add_argument("--threads", type=int, default=2,
                   help="torch CPU threads; the sums are added in another order with another "
                        "count, so the model is reproduced exactly only with the same one")
    p.add_argument("--cache", default="runs/vision-cache",
                   help="where rendered crops are kept between runs ('' for none)")
    p.add_argument("--art", type=Path, default=None, help="FluffyStuff Export folder (default: shared data)")
    p.add_argument("--styles", type=_styles, default=STYLES,
                   help="FluffyStuff styles to draw tiles in, comma-separated (default "
                        f"{','.join(STYLES)}); bench/enroll.py trains with Regular alone to "
                        "measure enrollment on a set the model never saw")
    p.add_argument("--smallest-print", type=_share, default=None, metavar="SHARE",
                   help="half the varied (harsh) character faces (man tiles, winds, 發, 中) "
                        "print their character smaller, down to this share of the face across "
                        "(sets that print it half the face wide); default: the art's own "
                        "range, 0.72-0.95")
    p.add_argument("--dark-faces", type=_share, default=0.0, metavar="SHARE",
                   help="share of the training crops drawn as a set with dark faces and light "
                        "ink (vision.synthesis.render.turn_lightness); 0 for none. See vision/README.md")
    return p


def arguments(argv=None) -> argparse.Namespace:
    """The command line read, or one line on stderr (exit 2) for options that do not fit."""
    p = parser()
    args = p.parse_args(argv)
    if args.font_epochs and not args.fonts_per_label:
        p.error("--font-epochs adds the font-written crops: give --fonts-per-label too")
    if args.device != "cpu" and not args.device.startswith("cuda"):
        p.error(f"--device {args.device!r}: expected cpu or cuda (cuda:N)")
    if args.workers < 1 or args.render_chunk < 0:
        p.error("--workers must be 1 or more and --render-chunk 0 or more")
    # the options themselves first, then what the machine must have for them: a wrong
    # option is named as such, fonts installed or not
    if args.fonts_per_label:
        try:   # before any work: the font pool is drawn after the others
            font_files([*args.fonts, *args.bird_fonts, *args.dragon_fonts])
        except RefereeError as exc:
            p.error(f"{exc}; --fonts-per-label 0 trains on the art alone")
    return args


def main(argv=None) -> int:
    args = arguments(argv)
    torch = _torch()
    t_start = time.monotonic()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    cache = Path(args.cache) if args.cache else None
    log = lambda msg: print(f"[{time.monotonic() - t_start:6.0f} s] {msg}", flush=True)  # noqa: E731
    try:
        art = TileArt(args.art, smallest_print=args.smallest_print)
    except RefereeError as exc:
        raise SystemExit(f"python -m vision.training.train: {exc}")
    x_train, y_train, fonts = training_crops(args, art, cache, log)
    x_val, y_val = render_pool(art, 30, args.seed + 1, "holdout", cache, log, styles=args.styles,
                               **_chunks(args))
    if args.render_only:
        log(f"rendered {len(x_train)} training crops into {cache}")
        return 0
    if args.device != "cpu" and not torch.cuda.is_available():
        raise SystemExit(f"python -m vision.training.train: --device {args.device}: no CUDA device here")
    t_fit = time.monotonic()
    model, n_params, stopped = fit(args, (x_train, y_train), fonts, (x_val, y_val), log)
    meta = _meta(args, n_params)
    meta["training_seconds"] = round(time.monotonic() - t_fit, 1)
    meta["device"] = (torch.cuda.get_device_name(args.device) if args.device != "cpu"
                      else f"cpu, {args.threads} threads")
    meta["heldout_rendered_accuracy"] = round(accuracy(model, x_val, y_val), 4)
    if stopped:
        meta["stopped_after_epochs"] = stopped
    export(model, args.out, meta)
    log(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) and {args.out.with_suffix('.json')}")
    fast = quantize_classifier(args.out)
    log(f"wrote {fast} ({fast.stat().st_size / 1e6:.2f} MB), the eight-bit copy the table runs")
    return 0


def _torch():
    """PyTorch, or the command's one line saying what to install."""
    try:
        import torch
    except ImportError:
        raise SystemExit("python -m vision.training.train needs PyTorch: pip install 'riichi-referee[train]'")
    try:
        import onnx  # noqa: F401  (torch's exporter needs it)
    except ImportError:
        raise SystemExit("python -m vision.training.train needs the onnx package to export: pip install onnx")
    return torch


def _chunks(args: argparse.Namespace) -> dict:
    """render_pool's chunking and processes, from the command line."""
    return {"chunk": args.render_chunk, "workers": args.workers}


def training_crops(args: argparse.Namespace, art: TileArt, cache: Path | None, log):
    """The training crops of the command line ``args``: (x, y) of every pool trained on from
    the start, and the font-written crops (x, y) kept for ``--font-epochs`` (None without)."""
    log(f"rendering {args.per_label} crops x {len(LABELS)} labels (seed {args.seed})")
    # Harsh camera for training only: see vision.synthesis.render.render_crop.
    dark = args.dark_faces
    x_train, y_train = render_pool(art, args.per_label, args.seed, "train", cache, log, harsh=True,
                                   styles=args.styles, dark_faces=dark, **_chunks(args))
    # Not-a-tile is many things (table, half tiles, hands, sticks): it gets more examples.
    x_none, y_none = render_pool(art, args.per_label, args.seed + 2, "train", cache, log, ("none",),
                                 harsh=True, styles=args.styles, dark_faces=dark, **_chunks(args))
    # Bare table and face-down tiles on felt the colour of tile backs: without them the only
    # back-coloured things the net ever sees are backs, and it calls bare felt of a held-out
    # table's colour (purple, orange, teal) a back.
    x_bl, y_bl = render_pool(art, args.per_label, args.seed + 3, "backlike", cache, log,
                             ("back", "none"), harsh=True, styles=args.styles, dark_faces=dark, **_chunks(args))
    # Some crops as the art is drawn, with the gentler camera: trained on harsh crops alone, the
    # net misread more real photographs (23 of 541, against 18) and more of the validation set
    # (9 of 1170, against 6). Other tables' colours still stay out of training.
    x_plain, y_plain = render_pool(art, args.plain_per_label, args.seed + 4, "train", cache, log,
                                   styles=args.styles, dark_faces=dark, **_chunks(args))
    pools = [(x_train, y_train), (x_none, y_none), (x_bl, y_bl), (x_plain, y_plain)]
    if args.hard_per_label:
        # Phone photos of real tables: tiles seen from the side, in warm or cold light, cut
        # off-centre (vision.synthesis.render._hard_view); the default crops see none of it.
        pools.append(render_pool(art, args.hard_per_label, args.seed + 6, "train", cache, log,
                                 harsh=True, styles=args.styles, dark_faces=dark,
                                 hard_views=1.0, **_chunks(args)))
    fonts = None
    if args.fonts_per_label:
        # The art is one set's brush; characters written in fonts make the net read the
        # character, not the hand (see vision.synthesis.calligraphy).
        written = copy.copy(art)   # the art already loaded, not read from disk again
        try:
            written.calligraphy = Calligraphy(args.fonts, honours=args.written_honours,
                                              birds=args.bird_fonts, dragons=args.dragon_fonts)
        except RefereeError as exc:
            raise SystemExit(f"python -m vision.training.train: {exc}")
        codes = tuple(c for c in labels_written(args.written_honours, bool(args.bird_fonts),
                                                bool(args.dragon_fonts))
                      if c not in args.leave_to_art)
        fonts = render_pool(written, args.fonts_per_label, args.seed + 5, "train", cache, log,
                            codes, harsh=True, styles=args.styles, dark_faces=dark, **_chunks(args))
        if not args.font_epochs:
            pools.append(fonts)
            fonts = None
    x_train = np.concatenate([x for x, _ in pools])
    y_train = np.concatenate([y for _, y in pools])
    return x_train, y_train, fonts


def fit(args: argparse.Namespace, training, fonts, validation, log):
    """A new network trained on ``training`` (x, y) as the command line ``args`` say, then
    for ``--font-epochs`` with the ``fonts`` crops added; each epoch's loss and accuracy on
    ``validation`` (x, y) logged. Returns the network, its number of parameters, and the
    epochs trained when ``--time-limit`` stopped it early (else 0)."""
    import torch

    x_train, y_train = training
    x_val, y_val = validation
    dev = torch.device(args.device)
    torch.backends.cudnn.benchmark = dev.type == "cuda"   # the same shapes every step
    model = build_model(widths=args.widths, blocks=args.blocks).to(dev)
    model = model.to(memory_format=torch.channels_last)
    n_params = sum(t.numel() for t in model.parameters())
    log(f"model: {n_params} parameters; {len(x_train)} training crops")
    steps_per_epoch = lambda n: max(1, n // args.batch)  # noqa: E731
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=args.lr, pct_start=0.15, total_steps=args.epochs * steps_per_epoch(len(x_train)))
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)
    gen = torch.Generator(dev).manual_seed(args.seed)
    t0 = time.monotonic()
    stopped = 0

    def train_epochs(xt, yt, epochs, sched, name):
        nonlocal stopped
        xt, yt = xt.to(dev), yt.to(dev)   # the whole pool: some 700 MB on a GPU
        steps = steps_per_epoch(len(xt))
        for epoch in range(epochs):
            model.train()
            order = torch.randperm(len(xt), generator=gen, device=dev)
            total = 0.0
            for s in range(steps):
                idx = order[s * args.batch:(s + 1) * args.batch]
                xb = batch_augment(xt[idx].permute(0, 3, 1, 2).float(), gen)
                xb = xb.contiguous(memory_format=torch.channels_last)
                loss = loss_fn(model(xb), yt[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                total += float(loss.detach()) if dev.type == "cpu" else loss.detach()
            log(f"{name} {epoch + 1}/{epochs}: loss {total / steps:.4f}, "
                f"held-out rendered accuracy {accuracy(model, x_val, y_val):.4f}")
            if args.time_limit and time.monotonic() - t0 > args.time_limit and epoch + 1 < epochs:
                stopped = epoch + 1
                log(f"--time-limit {args.time_limit:g} s passed: stopping after {stopped} epochs")
                return False
        return True

    finished = train_epochs(torch.from_numpy(x_train), torch.from_numpy(y_train), args.epochs,
                            sched, "epoch")
    if args.font_epochs and finished:
        # Tried because fonts mixed in from the start read real honours worse (Camerash 101 ->
        # 93 of 106); added late they still did (95 of 106): see vision/README.md.
        x_more = np.concatenate([x_train, fonts[0]])
        y_more = np.concatenate([y_train, fonts[1]])
        log(f"then {args.font_epochs} epochs with the {len(fonts[0])} font-written crops added")
        for group in opt.param_groups:   # a new schedule starts from initial_lr
            group["lr"] = group["initial_lr"] = args.lr / 10
        late = torch.optim.lr_scheduler.CosineAnnealingLR(
            opt, T_max=args.font_epochs * steps_per_epoch(len(x_more)))
        train_epochs(torch.from_numpy(x_more), torch.from_numpy(y_more), args.font_epochs, late,
                     "with fonts")
    return model, n_params, stopped


def _meta(args: argparse.Namespace, n_params: int) -> dict:
    """What goes beside the model: its labels and input, and the settings it was made with."""
    return {
        "labels": list(LABELS),
        "input_width": INPUT_WIDTH,
        "input_height": INPUT_HEIGHT,
        "input": "float32 N x 3 x H x W, BGR 0..255, crop made upright by vision.reading.classifier.prepare",
        "opset": ONNX_OPSET,
        "seed": args.seed,
        "per_label": args.per_label,
        "plain_per_label": args.plain_per_label,
        "fonts_per_label": args.fonts_per_label,
        **({"fonts": [str(p) for p in args.fonts], "written_honours": args.written_honours,
            "bird_fonts": [str(p) for p in args.bird_fonts],
            "dragon_fonts": [str(p) for p in args.dragon_fonts],
            "leave_to_art": list(args.leave_to_art)}
           if args.fonts_per_label else {}),
        "epochs": args.epochs,
        "label_smoothing": args.label_smoothing,
        "font_epochs": args.font_epochs,
        "dark_faces": args.dark_faces,
        "smallest_print": args.smallest_print,
        "threads": args.threads,
        "render_version": RENDER_VERSION,
        "widths": list(args.widths),
        "blocks": list(args.blocks),
        "hard_per_label": args.hard_per_label,
        "render_chunk": args.render_chunk,
        "styles": list(args.styles),
        "outputs": ["logits", EMBEDDING_OUTPUT],
        "parameters": n_params,
        "trained_by": "python -m vision.training.train",
    }


if __name__ == "__main__":
    raise SystemExit(main())
