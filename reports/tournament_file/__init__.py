"""The tournament file (TOURNAMENT_FILE.md), pure — no Django; ``reports.fileformat`` is its
public face (every name the importers use), ``reports.fileio`` its database side.

Split along the file's own seams:
- ``problems`` — ``FileProblem``, ``TournamentFileError`` and ``Problems``, the collector every
  section reader shares (a problem's code, params, key path and place);
- ``specs`` — the parsed file as frozen dataclasses, the values its fields take, what the
  database can hold;
- ``text`` — the JSON text: ``load_json`` (strict) and ``dumps`` (canonical);
- ``parse`` — the whole file, section by section in the contract's order: ``check_tournament``
  and ``parse_tournament``, the head and the settings; then ``entrants`` (units, pairs,
  teams), ``rounds`` (each round and its stage), ``tables`` (a round's matches and byes),
  ``deals`` (a match's start, deals and end, scored by the one engine), ``knockout`` (a
  best-of-n table's games and the match decided by ``scoring.series``), ``team_matches`` (a
  team event's rounds) and ``penalties``;
- ``serialize`` — ``to_dict``, the file written back (export → import → export is
  byte-identical);
- ``standings`` — standings straight from a file by the pure standings engine.
"""
