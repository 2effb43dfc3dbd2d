"""Event streams without a table: a compact script language and a seeded game generator.

:func:`script` turns short lines into table events, so a test or a demo reads like the play it
describes::

    script("0 gs ema2012", "0 hs 0", "1 d0 5m", "1.8 c2 pon", "2.4 m2 pon 550m 5m@0", "3 d2 9p")

Line forms (``t`` first, seconds on the table clock):

* ``t gs RULESET`` game_start (scores from the profile's start score) ·
  ``t hs DEALER [WIND] [DORA]`` hand_start (honba and sticks 0, wind E, indicator 1m)
* ``t dS TILE [r]`` discard by seat S (``r``: riichi) · ``t cS CALL`` button press
* ``t mS KIND TILES [CALLED@FROM]`` meld; TILES in mpsz (``550m``, ``1111z``)
* ``t dora TILE`` · ``t tenpai [S,S..]`` · ``t reveal S TILES WIN``
* ``t ref ACTION [ID] [text...]`` referee event (``ref undo``, ``ref override r3 why``)
* ``t clock start|extend SECONDS`` · ``t clock stop`` the round's clock ·
  ``t sign S`` · ``t sign ref`` a seat's signature, the referee's

:func:`simulate` plays whole hands between four simple players drawing from a shuffled set:
legal discards (no kuikae), chii/pon/kans when the tiles are really in hand, riichi when
tenpai, ron and tsumo when the hand is really complete (with riichi or a concealed tsumo for
yaku), exhaustive draws with the tenpai seats, and button timings like a real table's.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .rulesets import get_ruleset
from .scoring import is_complete, waits
from .tiles import base, full_set, kind, parse_hand, KINDS
from .kuikae import kuikae_kinds

__all__ = ["script", "simulate", "filler"]


def script(*lines: str) -> list[dict]:
    """Table events from compact lines (see the module docstring)."""
    events = []
    for line in lines:
        parts = line.split()
        t = float(parts[0])
        op, args = parts[1], parts[2:]
        if op == "gs":
            rs = get_ruleset(args[0] if args else None)
            events.append({"type": "game_start", "t": t, "ruleset": rs.name,
                           "scores": [rs.start_score] * 4})
        elif op == "hs":
            events.append({"type": "hand_start", "t": t, "round_wind": args[1] if len(args) > 1
                           else "E", "dealer": int(args[0]), "honba": 0, "riichi_sticks": 0,
                           "dora_indicators": [args[2] if len(args) > 2 else "1m"]})
        elif op == "dora":
            events.append({"type": "dora", "t": t, "indicator": args[0]})
        elif op == "tenpai":
            seats = [int(s) for s in args[0].split(",")] if args else []
            events.append({"type": "tenpai", "t": t, "seats": seats})
        elif op == "reveal":
            events.append({"type": "reveal", "t": t, "seat": int(args[0]),
                           "tiles": parse_hand(args[1]), "win_tile": args[2]})
        elif op == "ref":
            ev = {"type": "referee", "t": t, "action": args[0], "text": ""}
            rest = args[1:]
            if rest and rest[0].startswith("r") and rest[0][1:].isdigit():
                ev["ruling_id"] = rest[0]
                rest = rest[1:]
            ev["text"] = " ".join(rest)
            events.append(ev)
        elif op == "clock":
            ev = {"type": "clock", "t": t, "action": args[0]}
            if len(args) > 1:
                ev["seconds"] = float(args[1])
            events.append(ev)
        elif op == "sign":
            events.append({"type": "sign", "t": t, "referee": True} if args[0] == "ref"
                          else {"type": "sign", "t": t, "seat": int(args[0])})
        elif op[0] in "dcm" and op[1:].isdigit():
            seat = int(op[1:])
            if op[0] == "d":
                ev = {"type": "discard", "t": t, "seat": seat, "tile": args[0]}
                if len(args) > 1 and args[1] == "r":
                    ev["riichi"] = True
            elif op[0] == "c":
                ev = {"type": "call", "t": t, "seat": seat, "call": args[0]}
            else:
                ev = {"type": "meld", "t": t, "seat": seat, "kind": args[0],
                      "tiles": parse_hand(args[1])}
                if len(args) > 2:
                    called, _, frm = args[2].partition("@")
                    ev["called"] = called
                    if frm:
                        ev["from"] = int(frm)
            events.append(ev)
        else:
            raise ValueError(f"cannot read script line {line!r}")
    return events


def filler(n: int, first_seat: int, t0: float, dt: float = 1.0,
           tiles: str = "1z2z3z4z5z6z7z9m9p9s1m1p1s") -> list[dict]:
    """``n`` discards in turn order from ``first_seat``, ``dt`` apart, nobody calling."""
    pool = parse_hand(tiles)
    return [{"type": "discard", "t": round(t0 + i * dt, 3), "seat": (first_seat + i) % 4,
             "tile": pool[i % len(pool)]} for i in range(n)]


class _Player:
    def __init__(self, seat: int):
        self.seat = seat
        self.hand: list[str] = []
        self.melds: list[dict] = []
        self.riichi = False
        self.discards: set[str] = set()  # plain codes, as scoring.waits gives them
        self.furiten = False
        self.forbidden: tuple = ()
        self.called = False

    def counts(self) -> list[int]:
        c = [0] * 34
        for t in self.hand:
            c[kind(t)] += 1
        return c

    @property
    def closed(self) -> bool:
        return all(m["kind"] == "ankan" for m in self.melds)

    def take(self, code_kind: int, n: int) -> list[str]:
        """Remove ``n`` tiles of a kind from the hand (red five first, to show it)."""
        out = []
        for t in sorted(self.hand, key=lambda x: x[0] != "0"):
            if len(out) < n and kind(t) == code_kind:
                out.append(t)
        for t in out:
            self.hand.remove(t)
        return out


def _can_discard_after(p: "_Player", called: int, own: list[int]) -> bool:
    """Whether a chii or pon of ``called`` with ``own`` leaves a tile that kuikae allows.

    A call that would leave only forbidden tiles can't be made at a real table, so the
    simulated player doesn't make it either (discarding one anyway would be a kuikae).
    """
    c = p.counts()
    for k in own:
        c[k] -= 1
    forbidden = _kuikae("pon" if own[0] == called else "chii", own, called)
    return any(n > 0 and k not in forbidden for k, n in enumerate(c))


def _kuikae(call: str, own: list[int], called: int) -> tuple[int, ...]:
    """The kinds :func:`referee.kuikae.kuikae_kinds` forbids after the call, as kind
    numbers (the simulated players count tiles by kind)."""
    tiles = [KINDS[k] for k in own + [called]]
    return tuple(kind(x) for x in kuikae_kinds(call, tiles, KINDS[called]))


def _usefulness(c: list[int], k: int) -> int:
    score = c[k] * 4
    if k < 27:
        pos = k % 9
        for d in (-2, -1, 1, 2):
            if 0 <= pos + d <= 8:
                score += c[k + d] * (2 if abs(d) == 1 else 1)
        score += 1 if 2 <= pos <= 6 else 0
    return score


@dataclass
class _Deal:
    """One hand's tiles and counts as play goes: the dead wall holds the four kan
    replacement tiles, then the dora indicators from its fifth tile on."""

    players: list[_Player]
    dealer: int
    live: list[str]
    dead: list[str]
    kans: int = 0
    dora_next: int = 5        # the dead wall's next dora indicator
    pending_dora: int = 0     # kan dora turned after the next discard

    def replacement(self) -> str:
        """The replacement tile of the kan just made."""
        return self.dead[:4][self.kans - 1]


class _Game:
    def __init__(self, seed: int, ruleset: str):
        self.rng = random.Random(seed)
        self.rs = get_ruleset(ruleset)
        self.cw = self.rs.claim_window
        self.events: list[dict] = []
        self.t = 0.0
        self.scores = [self.rs.start_score] * 4
        self.sticks = 0
        self.honba = 0

    def emit(self, ev: dict) -> None:
        ev["t"] = round(self.t, 3)
        self.events.append(ev)

    def wait(self, lo: float, hi: float) -> None:
        self.t += self.rng.uniform(lo, hi)

    def after_window(self) -> None:
        """Own-turn calls come after the last discard's window has closed."""
        self.t = max(self.t, self.last_discard_t + (self.cw or 0) + 0.2 + self.rng.uniform(0, 0.5))

    # -- one hand ------------------------------------------------------------------------
    def play_hand(self, number: int) -> None:
        h = self.deal(number)
        seat = h.dealer
        draw = True
        self.last_discard_t = self.t - 10
        while True:
            p = h.players[seat]
            if draw:
                if not h.live:
                    break  # cannot happen: the last discard ends the loop
                drawn = h.live.pop()
                p.hand.append(drawn)
                p.called = False
                if not p.riichi:
                    p.furiten = False
            else:
                drawn = None
            if drawn is not None:
                if self.tsumo(h, p, drawn):
                    return
                drawn = self.closed_kan(h, p, drawn)
            tile, riichi = self.discard(h, p, drawn)
            last = not h.live
            if self.ron(h, seat, tile):
                return
            for q in h.players:
                if q is not p and q.riichi and base(tile) in waits(q.hand, q.melds):
                    q.furiten = True  # let a winning tile pass
            if riichi:
                self.scores[seat] -= 1000
                self.sticks += 1
            if last:
                tenpai = [q.seat for q in h.players if waits(q.hand, q.melds)]
                self.t += (self.cw or 0) + 0.5
                self.emit({"type": "tenpai", "seats": tenpai})
                self.honba += 1
                return
            # calls: pon/kan by anyone with the tiles, else chii by the next seat
            claim = self.find_claim(h.players, seat, tile, h.kans, len(h.live))
            if claim is None:
                seat = (seat + 1) % 4
                draw = True
                continue
            seat = self.call(h, claim, seat, tile)
            draw = False

    def deal(self, number: int) -> _Deal:
        """Shuffle, deal 13 tiles to each seat and start hand ``number``."""
        rng = self.rng
        tiles = list(full_set(self.rs.red_fives).elements())
        rng.shuffle(tiles)
        dealer = number % 4
        wind = "ESWN"[(number // 4) % 4]
        dead = tiles[:14]
        live = tiles[14:]
        players = [_Player(s) for s in range(4)]
        for i in range(13):
            for p in players:
                p.hand.append(live.pop())
        self.wait(5, 8)
        self.emit({"type": "hand_start", "round_wind": wind, "dealer": dealer,
                   "honba": self.honba, "riichi_sticks": self.sticks,
                   "dora_indicators": [dead[4]]})
        return _Deal(players, dealer, live, dead)

    def tsumo(self, h: _Deal, p: _Player, drawn: str) -> bool:
        """Whether ``p`` wins on the tile it drew: a complete hand with a yaku we are sure of
        (riichi or concealed). The call and the reveal are made if so."""
        if not (p.closed and is_complete(p.hand, p.melds) and self.cw is not None):
            return False
        self.after_window()
        self.emit({"type": "call", "seat": p.seat, "call": "ron"})
        self.wait(0.5, 1.5)
        self.emit({"type": "reveal", "seat": p.seat, "tiles": list(p.hand),
                   "win_tile": drawn})
        self.end_win(p.seat, h.dealer)
        return True

    def closed_kan(self, h: _Deal, p: _Player, drawn: str) -> str:
        """A closed kan on four of a kind in hand (not in riichi, keep it simple), now and
        then. Returns the tile the discard is made with in hand: the replacement after a kan."""
        if p.riichi or h.kans >= 3 or not h.live or p.called:
            return drawn
        c = p.counts()
        quad = next((k for k in range(34) if c[k] == 4), None)
        if quad is None or self.rng.random() >= 0.6:
            return drawn
        self.after_window()
        self.emit({"type": "call", "seat": p.seat, "call": "kan"})
        self.wait(0.4, 0.9)
        meld = {"kind": "ankan", "tiles": p.take(quad, 4)}
        self.emit({"type": "meld", "seat": p.seat, **meld})
        p.melds.append(meld)
        h.kans += 1
        self.wait(0.3, 0.6)
        self.emit({"type": "dora", "indicator": h.dead[h.dora_next]})
        h.dora_next += 1
        h.live.pop(0)  # the dead wall takes the live wall's last tile
        p.hand.append(h.replacement())
        self.last_discard_t = self.t - (self.cw or 0)
        return p.hand[-1]

    def discard(self, h: _Deal, p: _Player, drawn: str | None) -> tuple[str, bool]:
        """``p`` discards (declaring riichi, perhaps); a kan's dora waiting for the discard
        is then turned. Returns the tile and whether it declared riichi."""
        tile, riichi = self.choose_discard(p, drawn, len(h.live))
        p.hand.remove(tile)
        p.discards.add(base(tile))
        p.forbidden = ()
        if riichi:
            p.riichi = True
        if self.t < self.last_discard_t + 0.8:
            self.t = self.last_discard_t + 0.8
        self.wait(0.6, 1.4)
        ev = {"type": "discard", "seat": p.seat, "tile": tile}
        if riichi:
            ev["riichi"] = True
        self.emit(ev)
        self.last_discard_t = self.t
        while h.pending_dora:
            h.pending_dora -= 1
            self.t += 0.05
            self.emit({"type": "dora", "indicator": h.dead[h.dora_next]})
            h.dora_next += 1
        return tile, riichi

    def ron(self, h: _Deal, seat: int, tile: str) -> bool:
        """Whether ``tile``, discarded by ``seat``, is won on: by the riichi seats it completes
        and that are not furiten (one or two of them by the ruleset's multiple ron). The
        calls and the reveals are made if so."""
        winners = []
        for d in (1, 2, 3):
            q = h.players[(seat + d) % 4]
            if q.riichi and not q.furiten:
                if is_complete(q.hand + [tile], q.melds):
                    if any(k in q.discards for k in waits(q.hand, q.melds)):
                        q.furiten = True
                        continue
                    winners.append(q)
        if not winners:
            return False
        if self.rs.multiple_ron == "head_bump":
            winners = winners[:1]
        elif self.rs.multiple_ron == "double":
            winners = winners[:2]
        for q in winners:
            self.wait(0.3, 0.8)
            self.emit({"type": "call", "seat": q.seat, "call": "ron"})
        for q in winners:
            self.wait(0.4, 1.0)
            self.emit({"type": "reveal", "seat": q.seat, "tiles": q.hand + [tile],
                       "win_tile": tile})
        # a riichi discard that deals in is no bet: no stick is taken
        self.end_win(winners[0].seat, h.dealer)
        return True

    def call(self, h: _Deal, claim, seat: int, tile: str) -> int:
        """The ``claim`` (see :meth:`find_claim`) on ``tile``, discarded by ``seat``: the call,
        the meld, and for a kan its replacement tile and dora. Returns the calling seat."""
        q, call, own = claim
        self.wait(0.3, 1.2)
        self.emit({"type": "call", "seat": q.seat, "call": call})
        self.wait(0.3, 0.7)
        meld_kind = {"chii": "chii", "pon": "pon", "kan": "daiminkan"}[call]
        taken = []
        for k in own:
            taken += q.take(k, 1)
        meld = {"kind": meld_kind, "tiles": sorted(taken + [tile], key=kind)}
        self.emit({"type": "meld", "seat": q.seat, **meld, "called": tile, "from": seat})
        q.melds.append(meld)
        q.called = call in ("chii", "pon")
        if call in ("chii", "pon"):
            q.forbidden = _kuikae(call, own, kind(tile))
        if call == "kan":
            h.kans += 1
            h.live.pop(0)
            q.hand.append(h.replacement())
            if self.rs.kan_dora == "immediate":
                self.wait(0.2, 0.5)
                self.emit({"type": "dora", "indicator": h.dead[h.dora_next]})
                h.dora_next += 1
            else:
                h.pending_dora += 1
        return q.seat

    def choose_discard(self, p: _Player, drawn: str | None, wall: int) -> tuple[str, bool]:
        if p.riichi and drawn is not None:
            return drawn, False
        c = p.counts()
        options = [t for t in p.hand if kind(t) not in p.forbidden] or list(p.hand)
        scored = sorted(options, key=lambda t: (_usefulness(c, kind(t)), t[0] == "0",
                                                self.rng.random()))
        tile = scored[0]
        riichi = False
        if p.closed and not p.riichi and wall >= 4 and self.scores[p.seat] >= 1000:
            rest = list(p.hand)
            rest.remove(tile)
            w = waits(rest, p.melds)
            if w and not any(k in p.discards or k == base(tile) for k in w):
                riichi = self.rng.random() < 0.8
        return tile, riichi

    def find_claim(self, players, seat, tile, kans, wall):
        k = kind(tile)
        rng = self.rng
        for d in (1, 2, 3):
            q = players[(seat + d) % 4]
            if q.riichi:
                continue
            n = sum(1 for t in q.hand if kind(t) == k)
            if n >= 3 and kans < 3 and wall > 0 and rng.random() < 0.4:
                return q, "kan", [k, k, k]
            if n >= 2 and rng.random() < 0.35 and _can_discard_after(q, k, [k, k]):
                return q, "pon", [k, k]
        q = players[(seat + 1) % 4]
        if k < 27 and not q.riichi and rng.random() < 0.25:
            c = q.counts()
            pos = k % 9
            for a, b in ((-2, -1), (-1, 1), (1, 2)):
                if 0 <= pos + a and pos + b <= 8 and c[k + a] and c[k + b] \
                        and _can_discard_after(q, k, [k + a, k + b]):
                    return q, "chii", [k + a, k + b]
        return None

    def end_win(self, winner: int, dealer: int) -> None:
        self.sticks = 0
        self.honba = self.honba + 1 if winner == dealer else 0


def simulate(seed: int = 0, hands: int = 8, ruleset: str = "ema2012",
             names: list[str] | None = None) -> list[dict]:
    """A plausible, legal event stream of ``hands`` hands, the same for the same ``seed``.

    ``ruleset`` is named in ``game_start`` and sets the claim window the timings respect.
    """
    game = _Game(seed, ruleset)
    ev = {"type": "game_start", "ruleset": game.rs.name, "scores": list(game.scores)}
    if names:
        ev["names"] = list(names)
    game.emit(ev)
    for n in range(hands):
        game.play_hand(n)
    return game.events
