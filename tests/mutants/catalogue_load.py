"""The loaders' fast paths for span-dict files (SDK ``to_json()``, Monocle): the ids made once per
file (``_loaders/ids.py`` ``MadeIds``), the ISO fraction read without a padded copy, one resource
mapping for equal resources (``_loaders/common.py`` ``freeze_shared``), events filled in as blanks, and
the SDK's kinds and plain statuses read once (``_loaders/sdk.py``)."""

from __future__ import annotations

from mutant import Mutant, m

FAST_T = ("tests/unit/test_loaders_fast.py",)

IDS = "_loaders/ids.py"
CO = "_loaders/common.py"
SDK = "_loaders/sdk.py"

CATALOGUE: tuple[Mutant, ...] = (
    m(
        "LD01",
        CO,
        "            if kinds is None or kinds == tuple(map(type, value.values())):",
        "            if True:",
        FAST_T,
        "freeze_shared gives the kept mapping to an equal resource of other types (True where 1 was kept)",
    ),
    m(
        "LD02",
        CO,
        "_EXACT_TYPES = frozenset((str, int, bool, type(None)))",
        "_EXACT_TYPES = frozenset((str, int, float, bool, type(None)))",
        FAST_T,
        "freeze_shared shares floats: a resource of -0.0 gets the mapping of 0.0",
    ),
    m(
        "LD03",
        CO,
        "made[key] = (frozen, None if all(kind is str for kind in kinds) else kinds)",
        "made[key] = (frozen, None)",
        FAST_T,
        "freeze_shared keeps no value types: an int resource's mapping answers a bool one",
    ),
    m(
        "LD04",
        IDS,
        "            made: str = spans[value]\n            return None if made == _ZERO_SPAN else made",
        "            made: str = spans[value]\n            return made",
        FAST_T,
        "MadeIds.parents keeps an all-zero parent id (a root gets a parent that is not there)",
    ),
    m(
        "LD05",
        IDS,
        '            if value == "":\n                return None\n            made: str',
        "            made: str",
        FAST_T,
        "MadeIds.parents reads an empty parent id as an id (an error, where the general path says root)",
    ),
    m(
        "LD06",
        IDS,
        "self.traces = _Made(functools.partial(_named, nbytes=16, names=names))",
        "self.traces = _Made(functools.partial(_named, nbytes=8, names=names))",
        FAST_T,
        "MadeIds.traces makes trace ids of 8 bytes",
    ),
    m(
        "LD07",
        IDS,
        "return known * 1_000_000_000 + int(frac) * _FRACTION_SCALE[len(frac)]",
        "return known * 1_000_000_000 + int(frac) * 1_000",
        FAST_T,
        "iso_to_ns's fast path takes every fraction for microseconds",
    ),
    m(
        "LD08",
        IDS,
        "if known is not None and len(frac) <= 9 and frac.isdecimal():",
        "if known is not None and len(frac) <= 9 and frac:",
        FAST_T,
        "iso_to_ns's fast path lets int() read '1_2' or '+1' (a number where the general path says error)",
    ),
    m(
        "LD09",
        IDS,
        "if known is not None and len(frac) <= 9 and frac.isdecimal():",
        "if known is not None and frac.isdecimal():",
        FAST_T,
        "iso_to_ns's fast path reads a fraction of 10 digits (an IndexError, not the truncated time)",
    ),
    m(
        "LD10",
        SDK,
        "    if value.__class__ is str:\n        known = _KNOWN_KINDS.get(value)",
        "    if True:\n        known = _KNOWN_KINDS.get(value)",
        FAST_T,
        "kind_of looks up any value: a list kind fails as unhashable, not with the general message",
    ),
    m(
        "LD11",
        SDK,
        "    if value.__class__ is dict and len(value) == 1:",
        "    if value.__class__ is dict:",
        FAST_T,
        "status_from_json's fast path drops the description of an error status",
    ),
    m(
        "LD12",
        SDK,
        "        if code.__class__ is str:\n            known = _KNOWN_STATUS.get(code)",
        "        if True:\n            known = _KNOWN_STATUS.get(code)",
        FAST_T,
        "status_from_json looks up a list code: unhashable, not the general message",
    ),
    m(
        "LD13",
        CO,
        "        ev.timestamp_ns = timestamp_ns\n        ev.attributes = attributes\n",
        "        ev.timestamp_ns = timestamp_ns\n        ev.attributes = attributes if timestamp_ns else {}\n",
        FAST_T,
        "event's blank drops the attributes of an event without a timestamp",
    ),
    m(
        "LD14",
        SDK,
        '            resource_from_json(value.get("resource"), keys, ctx.resources),',
        '            resource_from_json(value.get("resource"), keys, ctx.resources) if start else EMPTY_MAPPING,',
        FAST_T,
        "convert drops the resource of a span without a start time",
    ),
    m(
        "LD15",
        IDS,
        "        return self.spans[value] if value.__class__ is str else _named(value, 8, self.names)",
        "        return self.spans[value]",
        FAST_T,
        "MadeIds.span looks up any value: a list id fails as unhashable, not with the general message",
    ),
    m(
        "LD16",
        SDK,
        "    if value.keys().isdisjoint(scope_keys):",
        '    if "scope" not in value:',
        FAST_T,
        "scope_from_json's quick answer looks for one scope key only (instrumentation_scope is lost)",
    ),
    m(
        "LD17",
        SDK,
        "    if value.keys().isdisjoint(scope_keys):",
        "    if value.keys().isdisjoint(scope_keys[:2]):",
        FAST_T,
        "scope_from_json's quick answer misses the later keys (scope, instrumentation_info)",
    ),
)
