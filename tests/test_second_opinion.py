"""A second model reads the tiles the table's model doubts: only those, averaged with the
first reading; the table's config names it; an enrolled set is fitted for both and a referee's
correction teaches both."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from test_enroll import other_inks_photo, read_back

from app.cli import main
from referee.errors import RefereeError
from vision.enrollment.sheet import PLACE_CODES
from vision.reading import second_opinion
from testkit.quantized import same_quantized_weights
from vision.reading.classifier import TRAINED_MODEL, TileClassifier
from vision.reading.second_opinion import SecondOpinion, second_model_path
from vision.reading.tileset import (
    EnrolledClassifier,
    TileSet,
    load_classifier,
    tileset_path,
)

LABELS = ("1m", "2m", "3m")


class Fixed:
    """A classifier that reads crop ``i`` (an int standing for a crop) as ``table[i]``, and
    remembers which crops it was shown."""

    def __init__(self, table, labels=LABELS, name="fixed.onnx"):
        self.table = np.asarray(table, np.float32)
        self.labels, self.model_path, self.input_width = labels, Path(name), 48
        self.shown = []

    def probabilities(self, crops):
        self.shown += list(crops)
        return self.table[list(crops)].copy()


@pytest.mark.parametrize("first, second, read", [
    # sure (0.95): the second model is not asked, the first reading stands
    ([0.95, 0.03, 0.02], [0.0, 1.0, 0.0], [0.95, 0.03, 0.02]),
    # doubtful (0.6) and the second model agrees: more sure of the same tile
    ([0.6, 0.4, 0.0], [0.9, 0.1, 0.0], [0.75, 0.25, 0.0]),
    # doubtful and misread by the first; the second reads it surely as the other tile
    ([0.55, 0.45, 0.0], [0.05, 0.95, 0.0], [0.30, 0.70, 0.0]),
    # just under the threshold counts as doubtful
    ([0.89, 0.11, 0.0], [0.0, 0.0, 1.0], [0.445, 0.055, 0.5]),
])
def test_only_a_doubtful_tile_gets_the_second_reading(first, second, read):
    pair = SecondOpinion(Fixed([first]), Fixed([second]))
    assert np.allclose(pair.probabilities([0])[0], read)
    assert pair.second.shown == ([] if max(first) >= 0.9 else [0])


def test_the_second_model_reads_only_the_doubtful_crops_of_a_frame():
    first = Fixed([[0.99, 0.01, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5], [0, 0, 1]])
    second = Fixed([[0, 1, 0]] * 4)
    pair = SecondOpinion(first, second)
    assert [label for label, _ in pair.classify([0, 1, 2, 3])] == ["1m", "2m", "2m", "3m"]
    assert second.shown == [1, 2]
    assert (pair.read, pair.read_twice) == (4, 2)
    assert pair.classify([]) == [] and second.shown == [1, 2]


def test_two_models_that_name_other_tiles_are_not_paired():
    with pytest.raises(RefereeError, match="labels are not those of"):
        SecondOpinion(Fixed([[1, 0, 0]]), Fixed([[1, 0]], labels=("1m", "2m")))


# -- the config ------------------------------------------------------------------------------

def test_the_config_names_the_second_model_or_none(tmp_path, monkeypatch):
    shipped = tmp_path / "shipped-second.onnx"
    small_print = tmp_path / "shipped-small-print.onnx"
    monkeypatch.setattr(second_opinion, "SECOND_MODEL", shipped)
    monkeypatch.setattr(second_opinion, "SMALL_PRINT_MODEL", small_print)
    config = tmp_path / "table.toml"
    config.write_text('[camera]\nsource = "picamera"\n')
    assert second_model_path(config, enrolled=True) is None      # none shipped
    assert second_model_path(config) is None
    shipped.write_bytes(b"model")
    assert second_model_path(config, enrolled=True) == shipped   # the shipped pair
    assert second_model_path(None, enrolled=True) == shipped
    assert second_model_path(config) is None                     # none shipped for no set
    small_print.write_bytes(b"model")
    assert second_model_path(config) == small_print              # no set enrolled: its own
    assert second_model_path(None) == small_print
    assert second_model_path(config, enrolled=True) == shipped
    assert second_model_path(config, model="mine.onnx", enrolled=True) is None  # its own model
    assert second_model_path(config, model="mine.onnx") is None
    config.write_text('[camera]\nfinder = "dark"\n')
    assert second_model_path(config) == shipped                  # a dark set: the dark pair
    assert second_model_path(config, model="mine.onnx") is None
    config.write_text('[camera]\nmodel = "mine.onnx"\n')
    assert second_model_path(config, enrolled=True) is None
    (tmp_path / "other.onnx").write_bytes(b"model")
    config.write_text('[camera]\nmodel = "mine.onnx"\nsecond_model = "other.onnx"\n')
    assert second_model_path(config) == tmp_path / "other.onnx"  # named: always
    config.write_text('[camera]\nsecond_model = ""\n')
    assert second_model_path(config, enrolled=True) is None


@pytest.mark.parametrize("value, says", [
    ('"gone.onnx"', "second_model .*gone.onnx: no such file"),
    ("3", "second_model must be a file name"),
])
def test_a_wrong_second_model_is_one_line_naming_the_config(tmp_path, value, says):
    config = tmp_path / "table.toml"
    config.write_text(f"[camera]\nsecond_model = {value}\n")
    with pytest.raises(RefereeError, match=says) as err:
        load_classifier(config)
    assert str(config) in str(err.value) and "\n" not in str(err.value)


# -- with the models and an enrolled set ------------------------------------------------------

def paired_config(folder: Path) -> Path:
    """A table config that pairs the table's model with a second one. The shipped float model
    stands in for the second: another file, the same labels."""
    config = folder / "table.toml"
    config.write_text(f'[camera]\nsecond_model = "{TRAINED_MODEL}"\n')
    return config


def test_the_table_reads_with_the_pair_its_config_names(tmp_path):
    clf = load_classifier(paired_config(tmp_path), threads=1)
    assert isinstance(clf, SecondOpinion)
    assert isinstance(clf.first, TileClassifier) and clf.second.model_path == TRAINED_MODEL
    assert clf.tileset is None and getattr(clf, "learn", None) is None


@pytest.fixture(scope="module")
def enrolled_pair(tmp_path_factory, shared_data):
    folder = tmp_path_factory.mktemp("pair")
    photo = folder / "sheet.jpg"
    cv2.imwrite(str(photo), other_inks_photo(11))
    config = paired_config(folder)
    assert main(["enroll", str(photo), "--config", str(config), "--name", "Hall B set"]) == 0
    return config


def test_enrolling_fits_the_set_for_both_models(enrolled_pair, monkeypatch):
    ts = TileSet.load(tileset_path(enrolled_pair))
    assert ts.adaptation is not None and ts.second_adaptation is not None
    assert ts.second_model and ts.second_model != ts.model
    # loading the table's classifier fits nothing again: the start of play is not delayed
    monkeypatch.setattr(TileSet, "refit", lambda *a, **k: pytest.fail("fitted again on load"))
    clf = load_classifier(enrolled_pair, threads=1)
    assert isinstance(clf, SecondOpinion)
    assert isinstance(clf.first, EnrolledClassifier) and not clf.first.second
    assert isinstance(clf.second, EnrolledClassifier) and clf.second.second
    assert clf.tileset.name == "Hall B set"
    crops = read_back(12)
    assert [label for label, _ in clf.classify(crops)] == list(PLACE_CODES)


def test_a_set_enrolled_before_the_pair_is_fitted_for_the_second_model_on_load(
        enrolled_pair, tmp_path):
    ts = TileSet.load(tileset_path(enrolled_pair))
    ts.second_model, ts.second_adaptation = "", None     # as a set enrolled for one model
    ts.save(tmp_path / "tileset.npz")
    config = paired_config(tmp_path)
    clf = load_classifier(config, threads=1)
    assert clf.second.adaptation is not None
    crops = read_back(13)
    assert [label for label, _ in clf.classify(crops)] == list(PLACE_CODES)


def test_a_referee_correction_teaches_both_models_and_is_saved_once(enrolled_pair, tmp_path):
    path = tmp_path / "tileset.npz"
    path.write_bytes(tileset_path(enrolled_pair).read_bytes())
    clf = load_classifier(paired_config(tmp_path), threads=1)
    before = clf.tileset.second_adaptation.prototypes.copy()
    crop = read_back(15)[PLACE_CODES.index("7s")]
    clf.learn(crop, "7s")
    kept = TileSet.load(path)
    assert (kept.corrections, len(kept.labels), kept.labels[-1]) == (1, 39, "7s")
    assert kept.second_adaptation is not None
    assert not np.allclose(kept.second_adaptation.prototypes, before)


# -- the shipped pair -------------------------------------------------------------------------

def test_the_shipped_second_model_is_the_dark_faces_training_and_its_eight_bit_copy():
    import json

    from vision.training.quantize import int8_path

    assert second_opinion.SECOND_MODEL == int8_path(second_opinion.TRAINED_SECOND_MODEL)
    meta = json.loads(second_opinion.TRAINED_SECOND_MODEL.with_suffix(".json").read_text())
    shipped = json.loads(TRAINED_MODEL.with_suffix(".json").read_text())
    # the project's command with its defaults, but for the dark faces: the same labels, crops
    # and epochs as the table's model, so that it differs in that one thing
    assert meta["trained_by"] == "python -m vision.training.train" and meta["dark_faces"] == 0.25
    assert {k: meta[k] for k in ("labels", "seed", "per_label", "epochs", "widths")} == \
        {k: shipped[k] for k in ("labels", "seed", "per_label", "epochs", "widths")}
    assert second_opinion.SECOND_MODEL.stat().st_size < 0.3 * \
        second_opinion.TRAINED_SECOND_MODEL.stat().st_size


def test_the_shipped_small_print_model_is_the_tables_training_with_characters_printed_smaller():
    import json

    from vision.training import train
    from vision.training.quantize import int8_path

    trained = second_opinion.TRAINED_SMALL_PRINT_MODEL
    assert second_opinion.SMALL_PRINT_MODEL == int8_path(trained)
    meta = json.loads(trained.with_suffix(".json").read_text())
    # the project's command with its defaults but for the one option: the table's model's
    # crops, fonts and schedule, so the two differ in how big a character is printed
    defaults = vars(train.parser().parse_args([]))
    assert meta["trained_by"] == "python -m vision.training.train"
    assert meta["smallest_print"] == 0.5 and defaults["smallest_print"] is None
    for key in ("seed", "per_label", "plain_per_label", "fonts_per_label", "written_honours",
                "epochs", "label_smoothing", "dark_faces", "threads", "hard_per_label"):
        assert meta[key] == defaults[key], key
    assert meta["widths"] == list(defaults["widths"]) and meta["blocks"] == list(defaults["blocks"])
    assert meta["fonts"] == [str(p) for p in defaults["fonts"]]
    assert meta["render_version"] == train.RENDER_VERSION
    assert second_opinion.SMALL_PRINT_MODEL.stat().st_size < 0.3 * trained.stat().st_size


@pytest.fixture(scope="module")
def labelled_faces(shared_data):
    """Every riichi tile of the labelled real photographs, cut by its labelled outline, and
    its code."""
    from testkit.photos import load_photos, tile_crop

    crops, codes = [], []
    for photo in load_photos(shared_data):
        image = photo.image()
        for quad, code in zip(photo.quads, photo.codes):
            if code != "x":
                crops.append(tile_crop(image, quad))
                codes.append(code)
    return crops, codes


def test_a_set_not_enrolled_is_read_righter_and_surer_with_the_small_print_model_beside(
        labelled_faces):
    """The labelled real photographs' 1580 tiles, Hong Kong sets the table never enrolled, each
    cut by its outline and read alone: the pair a table with no set enrolled reads with names
    more of them right (1529 -> 1533) and more of them surely (1312 -> 1320), and states no
    wrong tile as fact; the winds, which these sets print small, surer too (116 -> 122 of
    182)."""
    crops, codes = labelled_faces
    alone = TileClassifier(threads=1)
    pair = load_classifier(None, threads=1)
    assert isinstance(pair, SecondOpinion)
    assert pair.second.model_path == second_opinion.SMALL_PRINT_MODEL

    def figures(clf, which):
        read = clf.classify([crops[i] for i in which])
        right = [label == codes[i] for (label, _), i in zip(read, which)]
        sure = [c >= 0.8 for _, c in read]
        return sum(right), sum(r and s for r, s in zip(right, sure)), \
            sum(s and not r for r, s in zip(right, sure))

    every = range(len(codes))
    winds = [i for i in every if codes[i] in ("1z", "2z", "3z", "4z")]
    (right, sure, wrong), (right_1, sure_1, wrong_1) = figures(pair, every), figures(alone, every)
    assert right > right_1 and sure > sure_1 and wrong == wrong_1 == 0
    (right, sure, _), (right_1, sure_1, _) = figures(pair, winds), figures(alone, winds)
    assert right >= right_1 and sure > sure_1


def test_a_set_whose_faces_turn_out_dark_has_its_doubts_read_by_the_dark_faces_model():
    pair = load_classifier(None, threads=1)
    dark = second_opinion.for_dark_faces(pair)
    assert dark.first is pair.first and dark.below == pair.below
    assert dark.second.model_path == second_opinion.SECOND_MODEL
    assert second_opinion.for_dark_faces(pair).second is dark.second     # loaded once
    # what is not the shipped pair of a set not enrolled is read as it is
    for other in (pair.first, dark, SecondOpinion(Fixed([[1, 0, 0]]), Fixed([[0, 1, 0]]))):
        assert second_opinion.for_dark_faces(other) is other


def test_a_table_reads_with_the_shipped_pair_once_a_set_is_enrolled(enrolled_pair, tmp_path):
    config = tmp_path / "table.toml"
    config.write_text('[camera]\nsource = "picamera"\n')
    clf = load_classifier(config, threads=1)
    # no set enrolled: the table's model with the small-print model beside it
    assert isinstance(clf, SecondOpinion) and type(clf.first) is TileClassifier
    assert clf.second.model_path == second_opinion.SMALL_PRINT_MODEL
    (tmp_path / "tileset.npz").write_bytes(tileset_path(enrolled_pair).read_bytes())
    clf = load_classifier(config, threads=1)
    assert isinstance(clf, SecondOpinion)
    assert clf.second.model_path == second_opinion.SECOND_MODEL and clf.second.second


def test_an_enrolled_real_set_is_read_right_by_the_pair(shared_data):
    """Camerash set 6 (real photos), one tile of each kind enrolled as from the sheet, its
    other 99 tiles read: the pair reads every one, and the enrolled table's model is sure of
    every one, so the second is not even asked (it earns its keep on harder sets: the rendered
    Black set, bench/enroll.py). Not enrolled, the pair reads no more right than the table's
    model alone (96 and 96 of 99; with the reader before the fonts, 1s as 8m and 3s as 7s made
    it fewer): why a set not enrolled is read with another second model, the small-print one
    (vision.reading.second_opinion)."""
    from testkit.photos import one_of_each, photos_by_set

    enrolled, rest = one_of_each(photos_by_set(shared_data)["6"], 0)
    first = TileClassifier(threads=1)
    second = TileClassifier(second_opinion.SECOND_MODEL, threads=1)
    ts = TileSet.fit(first, [c for c, _ in enrolled], [k for _, k in enrolled], second=second)
    crops, truth = [c for c, _ in rest], [k for _, k in rest]

    def right(clf):
        return sum(label == k for (label, _), k in zip(clf.classify(crops), truth))

    pair = SecondOpinion(EnrolledClassifier(first, ts), EnrolledClassifier(second, ts, second=True))
    assert right(pair) == len(truth) == 99
    assert pair.read_twice == 0
    assert right(SecondOpinion(first, second)) <= right(first)


@pytest.mark.parametrize("trained, eight_bit", [
    (second_opinion.TRAINED_SECOND_MODEL, second_opinion.SECOND_MODEL),
    (second_opinion.TRAINED_SMALL_PRINT_MODEL, second_opinion.SMALL_PRINT_MODEL),
], ids=["dark", "small-print"])
def test_the_shipped_second_models_eight_bit_copy_is_what_quantize_makes(
        tmp_path, shared_data, calibrated_once, holdout_crops, trained, eight_bit):
    pytest.importorskip("onnx", reason="quantizing needs the onnx package (the test and train extras)")
    import shutil

    from vision.training.quantize import quantize_classifier

    for f in (trained, trained.with_suffix(".json")):
        shutil.copy(f, tmp_path / f.name)
    made = quantize_classifier(tmp_path / trained.name)
    same_quantized_weights(made, eight_bit)
    remade = TileClassifier(made, threads=1)
    crops = holdout_crops
    shipped = TileClassifier(eight_bit, threads=1)
    # the calibration renders' pixels depend on the machine (see same_quantized_weights): the
    # readings agree, their probabilities within a hundredth (measured 0.003 on an AVX2 machine
    # with OpenCV 4.14, against 0.004 between the shipped eight-bit copy and its float model)
    a, b = remade.probabilities(crops), shipped.probabilities(crops)
    assert (a.argmax(axis=1) == b.argmax(axis=1)).all()
    assert np.allclose(a, b, atol=1e-2)
