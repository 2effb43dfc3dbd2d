"""A stand-in referee for the dashboard's tests and benchmark.

:class:`ScriptedReferee` has the :class:`referee.core.Referee` surface (``feed``, ``advance``,
``finish``, ``next_deadline``, ``snapshot``) and keeps a snapshot of the documented shape,
with a deliberately small judgement: a claim window per discard, ron > pon/kan > chii, no
violations but the ones a test scripts with :meth:`ScriptedReferee.violation`. It lets the
dashboard be tested on its own; it is not a rules engine.
"""
from __future__ import annotations

import copy

_RANK = {"ron": 3, "pon": 2, "kan": 2, "chii": 1}


class ScriptedReferee:
    """``claim_window``: seconds a discard stays open to claims."""

    def __init__(self, claim_window: float = 3.0, ruleset: str = "ema2012"):
        self.claim_window = claim_window
        self._ruleset = ruleset
        self._next_id = 1
        self._scripted: list[dict] = []
        self._state = {
            "t": 0.0, "ruleset": ruleset, "claim_window": claim_window, "names": None,
            "scores": [25000] * 4, "round": None, "turn": None, "wall": 70,
            "dora_indicators": [], "seats": [self._seat(s) for s in range(4)],
            "window": None, "hand_over": False, "game_over": False,
        }

    @staticmethod
    def _seat(seat: int) -> dict:
        return {"seat": seat, "riichi": False, "dead_hand": False, "pond": [], "melds": []}

    def _ruling(self, ruling: dict, t: float) -> dict:
        ruling = {**ruling, "t": t, "ruling_id": f"r{self._next_id}"}
        self._next_id += 1
        return ruling

    def violation(self, seat: int, kind: str, penalty: str, rule: str, text: str) -> None:
        """Have the next fed event also produce this violation ruling."""
        self._scripted.append({"type": "violation", "seat": seat, "kind": kind,
                               "penalty": penalty, "rule": rule, "text": text})

    # -- the Referee surface ------------------------------------------------------------
    def next_deadline(self) -> float | None:
        window = self._state["window"]
        return window["deadline"] if window else None

    def advance(self, t: float) -> list[dict]:
        window = self._state["window"]
        if window is None or window["deadline"] > t:
            return []
        return [r for r in [self._close(window)] if r]

    def finish(self) -> list[dict]:
        window = self._state["window"]
        return [r for r in [self._close(window)] if r] if window else []

    def _close(self, window: dict) -> dict | None:
        st = self._state
        st["window"] = None
        presses = [p for p in window["presses"] if p["t"] <= window["deadline"]]
        best = max((_RANK[p["call"]] for p in presses), default=0)
        winners, rejected = [], []
        for p in presses:
            if _RANK[p["call"]] == best and not winners:
                winners.append({"seat": p["seat"], "call": p["call"]})
            else:
                rejected.append({"seat": p["seat"], "call": p["call"], "reason": "precedence"})
        for p in window["presses"]:
            if p["t"] > window["deadline"]:
                rejected.append({"seat": p["seat"], "call": p["call"], "reason": "late"})
        discarder = window["discard_seat"]
        if not window["presses"]:
            st["turn"] = (discarder + 1) % 4
            return None  # the spec rules on a discard only when someone pressed
        if winners:
            st["seats"][discarder]["pond"][-1]["called"] = True
            st["turn"] = winners[0]["seat"]
        else:
            st["turn"] = (discarder + 1) % 4
        return self._ruling({"type": "claim", "discard_seat": discarder, "tile": window["tile"],
                             "winners": winners, "rejected": rejected,
                             "window": round(window["deadline"] - window["opened"], 3)},
                            window["deadline"])

    def feed(self, event: dict) -> list[dict]:
        t = float(event["t"])
        rulings = self.advance(t)
        st = self._state
        st["t"] = t
        kind = event["type"]
        if kind == "game_start":
            st["scores"] = list(event["scores"])
            st["names"] = event.get("names")
            st["ruleset"] = event["ruleset"]
            st["game_over"] = False
        elif kind == "hand_start":
            number = event["dealer"] + 1
            st["round"] = {"wind": event["round_wind"], "number": number,
                           "dealer": event["dealer"], "honba": event["honba"],
                           "riichi_sticks": event["riichi_sticks"]}
            st["dora_indicators"] = list(event["dora_indicators"])
            st["seats"] = [self._seat(s) for s in range(4)]
            st["turn"] = event["dealer"]
            st["wall"] = 70
            st["hand_over"] = False
        elif kind == "discard":
            seat = st["seats"][event["seat"]]
            riichi = bool(event.get("riichi"))
            seat["pond"].append({"tile": event["tile"], "t": t, "riichi": riichi,
                                 "called": False})
            seat["riichi"] = seat["riichi"] or riichi
            st["wall"] = max(0, st["wall"] - 1)
            st["turn"] = None
            st["window"] = {"discard_seat": event["seat"], "tile": event["tile"], "opened": t,
                            "deadline": t + self.claim_window, "chankan": False,
                            "last_discard": st["wall"] == 0, "presses": []}
        elif kind == "call":
            if st["window"] is not None:
                st["window"]["presses"].append({"seat": event["seat"], "call": event["call"],
                                                "t": t})
        elif kind == "meld":
            meld = {"kind": event["kind"], "tiles": list(event["tiles"])}
            if event.get("called"):
                meld["called"] = event["called"]
            if event.get("from") is not None:
                meld["from"] = event["from"]
            st["seats"][event["seat"]]["melds"].append(meld)
            st["turn"] = event["seat"]
        elif kind == "dora":
            st["dora_indicators"].append(event["indicator"])
        elif kind == "referee" and event["action"] == "end_game":
            st["game_over"] = True
            rulings.append(self._ruling({"type": "game_end", "scores": list(st["scores"]),
                                         "final": [0.0] * 4}, t))
        rulings.extend(self._ruling(v, t) for v in self._scripted)
        self._scripted.clear()
        return rulings

    def snapshot(self) -> dict:
        return copy.deepcopy(self._state)
