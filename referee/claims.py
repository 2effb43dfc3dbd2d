"""Claim windows and arbitration: who gets a discard when several seats press.

A :class:`ClaimWindow` opens at a discard (or at the tile added to a kan, for chankan) and
collects the seat buttons pressed for it. It closes at its deadline (the ruleset's window), when
the table moves on (another discard), or early when nothing still possible could outrank the
claims already standing. :func:`arbitrate` then picks the winners per the ruleset: ron before
pon/kan before chii, several rons by head bump or all together, three rons aborting where the
ruleset says so.

Presses that cannot stand are sorted out as they arrive (:meth:`ClaimWindow.press` returns why):
the discarder's own press is ignored, a chii from any seat but the next is ``wrong_seat``, any
call but ron on the last discard is ``last_discard``, a kan beyond the kan limit or with no
replacement tile is ``kan_limit``/``no_wall``, and on an added kan only ron counts. What the
table shows of the seat itself may forbid its call too (the caller passes it in,
:data:`BARRED`): a kan on a discard by a seat that shows a pon of that tile is ``own_pon``, a
chii, pon or kan by a seat in riichi is ``riichi``.

``own_pon``, ``riichi`` and ``triple_ron`` (each of three rons, when three rons abort the hand)
are additions to the spec's list of rejection reasons (table-events.md, which is not ours to
edit): extra values, as the spec allows it to be extended by adding. A reader that does not
know one still sees the press rejected; the dashboard labels all three.
"""
from __future__ import annotations

#: Rank of each call when claims compete: a win beats everything, pon and kan beat chii.
RANK = {"ron": 3, "kan": 2, "pon": 2, "chii": 1}


#: Rejection reasons the spec's list (table-events.md: ``precedence``, ``head_bump``, ``late``,
#: ``wrong_seat``, ``last_discard``, ``no_wall``, ``kan_limit``) has no word for; a reader that
#: does not know one still sees the press rejected.
#:
#: ``own_pon``: a kan called on another player's discard of the fourth tile of a pon the seat
#: shows. An open kan needs three matching concealed tiles, and with three in the pon the
#: seat has none: "If the fourth tile was discarded by another player, it cannot be claimed
#: by kan" (issue 41, the Kan seed, JMW "Kan", under shouminkan). ``riichi``: a chii, pon or
#: open kan by a seat in riichi, which "can only discard the tile [it draws]" (issue 41, the
#: Ari-Ari seed) and so claims a discard only for a win.
BARRED = ("own_pon", "riichi")

#: Every ``reason`` a claim ruling's ``rejected`` entry may carry: the spec's seven, then the
#: additions (:data:`BARRED`, and ``triple_ron`` for each of three rons that abort the hand).
REJECTIONS = ("precedence", "head_bump", "late", "wrong_seat", "last_discard", "no_wall",
              "kan_limit") + BARRED + ("triple_ron",)


def distance(discarder: int, seat: int) -> int:
    """Seats from the discarder to ``seat`` in turn order (1 = next player, 3 = the one before)."""
    return (seat - discarder) % 4


class ClaimWindow:
    """The claims on one discard.

    ``discard_seat``/``tile``: whose discard and which tile (for chankan, the kan's owner and the
    added tile). ``opened``: the discard's ``t``. ``deadline``: when the window closes on the
    table clock, ``None`` when the ruleset has no timing rule (a claim stands until the next
    discard). ``chankan``: the window of an added (or, for thirteen orphans, closed) kan, open
    to ron alone. ``last_discard``: no tile is left in the wall, so only ron may claim.
    ``discard_index``: the discard's index in the hand (None for chankan).
    """

    __slots__ = ("discard_seat", "tile", "opened", "deadline", "chankan", "last_discard",
                 "discard_index", "presses", "rejected", "ignored", "closed", "kan_blocked",
                 "ankan", "winners", "refused_shown", "barred_at")

    def __init__(self, discard_seat: int, tile: str, opened: float, deadline: float | None,
                 chankan: bool = False, last_discard: bool = False,
                 discard_index: int | None = None, kan_blocked: str | None = None,
                 ankan: bool = False):
        self.discard_seat = discard_seat
        self.tile = tile
        self.opened = opened
        self.deadline = deadline
        self.chankan = chankan
        self.ankan = ankan
        self.last_discard = last_discard
        self.discard_index = discard_index
        #: why a daiminkan cannot be made on this discard (``kan_limit``/``no_wall``) or None
        self.kan_blocked = kan_blocked
        #: standing presses, at most one per seat: {"seat", "call", "t"}
        self.presses: list[dict] = []
        self.rejected: list[dict] = []
        #: presses that are not claims at all (own discard, a repeat): {"seat","call","reason"}
        self.ignored: list[dict] = []
        self.closed = False
        #: the decision once closed: ``{"seat", "call"}`` of each winner (see :func:`arbitrate`)
        self.winners: list[dict] = []
        #: seats whose meld, shown on a press rejected :data:`BARRED`, was already flagged
        self.refused_shown: set[int] = set()
        #: when each press rejected :data:`BARRED` was made: (seat, call) -> t
        self.barred_at: dict[tuple, float] = {}

    @property
    def received_call(self) -> bool:
        return bool(self.presses or self.rejected or self.ignored)

    def heard(self, seat: int, call: str) -> bool:
        """Whether this window already took ``seat``'s ``call`` into account (standing,
        rejected or ignored), or gave ``seat`` the tile: pressing it again changes nothing."""
        if any(w["seat"] == seat for w in self.winners):
            return True
        return any(x["seat"] == seat and x["call"] == call
                   for x in (*self.presses, *self.rejected, *self.ignored))

    def press(self, seat: int, call: str, t: float, barred: str | None = None) -> str | None:
        """Record a button press; return the rejection reason when it cannot stand, else None.

        ``barred``: why what the table shows of ``seat`` forbids this call (one of
        :data:`BARRED`), or None; it is the reason when the window itself has none.
        A seat's repeated press of the same call counts once; a seat that changes its call
        keeps the higher one (a win over pon over chii), the other is noted as ignored.
        """
        if seat == self.discard_seat:
            self.ignored.append({"seat": seat, "call": call, "reason": "own_discard"})
            return "own_discard"
        if self.chankan and call != "ron":
            self.ignored.append({"seat": seat, "call": call, "reason": "ron_only"})
            return "ron_only"
        reason = None
        if self.last_discard and call != "ron":
            reason = "last_discard"
        elif call == "chii" and distance(self.discard_seat, seat) != 1:
            reason = "wrong_seat"
        elif call == "kan" and self.kan_blocked:
            reason = self.kan_blocked
        elif barred is not None and call != "ron":
            reason = barred
        if reason is not None:
            if not any(r["seat"] == seat and r["call"] == call for r in self.rejected):
                self.rejected.append({"seat": seat, "call": call, "reason": reason})
                if reason in BARRED:
                    self.barred_at[(seat, call)] = t
            return reason
        for p in self.presses:
            if p["seat"] == seat:
                if p["call"] == call:
                    return "repeat"
                if RANK[call] > RANK[p["call"]]:
                    self.ignored.append({"seat": seat, "call": p["call"], "reason": "changed_call"})
                    p["call"] = call
                    p["t"] = t
                else:
                    self.ignored.append({"seat": seat, "call": call, "reason": "changed_call"})
                return None
        self.presses.append({"seat": seat, "call": call, "t": t})
        return None

    def take_back(self, seat: int, call: str) -> float | None:
        """Withdraw ``seat``'s ``call`` press, standing or rejected :data:`BARRED` (it was
        the seat's own-turn call after all); return when it was pressed, or None when there
        is no such press."""
        press = next((p for p in self.presses if p["seat"] == seat and p["call"] == call), None)
        if press is not None:
            self.presses.remove(press)
            return press["t"]
        t = self.barred_at.pop((seat, call), None)
        if t is not None:
            self.rejected = [r for r in self.rejected
                             if not (r["seat"] == seat and r["call"] == call)]
        return t

    def settled(self, multiple_ron: str) -> bool:
        """True when nothing any seat could still press would change the outcome.

        Only a win can outrank a standing claim, and every other seat may still press ron, so
        this holds when: under head bump, a ron stands from the seat right after the
        discarder; under any policy, every other seat already presses ron.
        """
        rons = [p["seat"] for p in self.presses if p["call"] == "ron"]
        if not rons:
            return False
        if len(rons) == 3:
            return True
        return multiple_ron == "head_bump" and any(
            distance(self.discard_seat, s) == 1 for s in rons)

    def snapshot(self) -> dict:
        return {"discard_seat": self.discard_seat, "tile": self.tile, "opened": self.opened,
                "deadline": self.deadline, "chankan": self.chankan,
                "last_discard": self.last_discard,
                "presses": [dict(p) for p in self.presses]}


def arbitrate(window: ClaimWindow, multiple_ron: str) -> tuple[list[dict], list[dict], bool]:
    """Decide a window: ``(winners, rejected, triple_ron)``.

    ``winners`` are ``{"seat", "call"}`` nearest the discarder first; ``rejected`` adds the
    presses that lost (``precedence``, ``head_bump``) to those rejected on arrival; and
    ``triple_ron`` is True when three rons abort the hand under the ``double`` policy (the
    three are then rejected with reason ``triple_ron``).
    """
    d = window.discard_seat
    presses = sorted(window.presses, key=lambda p: (distance(d, p["seat"]), p["t"]))
    rejected = list(window.rejected)
    rons = [p for p in presses if p["call"] == "ron"]
    triple = False
    if rons:
        if multiple_ron == "head_bump":
            winners, bumped = rons[:1], rons[1:]
            rejected += [{"seat": p["seat"], "call": "ron", "reason": "head_bump"} for p in bumped]
        elif multiple_ron == "double" and len(rons) >= 3:
            winners = []
            triple = True
            rejected += [{"seat": p["seat"], "call": "ron", "reason": "triple_ron"} for p in rons]
        else:
            winners = rons
        rejected += [{"seat": p["seat"], "call": p["call"], "reason": "precedence"}
                     for p in presses if p["call"] != "ron"]
        return [{"seat": p["seat"], "call": "ron"} for p in winners], rejected, triple
    if not presses:
        return [], rejected, False
    # pon/kan before chii; between two pon/kan (a misread or a false call) the first pressed
    best = max(presses, key=lambda p: (RANK[p["call"]], -p["t"], -distance(d, p["seat"])))
    rejected += [{"seat": p["seat"], "call": p["call"], "reason": "precedence"}
                 for p in presses if p is not best]
    return [{"seat": best["seat"], "call": best["call"]}], rejected, False
