/* The score sheet computed on the phone, for taps still waiting in the outbox (issue 16).

   No rule is written here: the level progression (RULES.md §1, the A rule and its variants) is
   the table scoring/rules_data.py generates from rules.progression; this file only looks it up
   and counts deals against the round's limit as scoring/engine.py does, then words the result
   with the server's own words (scoring.sheet.sheet_words). tests/web/test_sheet_rules_js.py
   checks that the result equals the server's sheet (scoring.sheet.sheet_state) for random deal
   sequences under several rule sets. Runs in the browser (window.SheetRules) and under node. */
(function (root) {
  "use strict";

  var SIDES = ["", "NS", "EW"];

  function format(template, params) {
    return template.replace(/%\((\w+)\)s/g, function (_, name) {
      return String(params[name]);
    });
  }

  function Refused(code) {
    this.code = code;
  }

  /* The sheet after ``tokens`` from ``start`` ([ns, ew]), worded like sheet_state; ``null``
     when the rules table does not reach that far (a referee's level award, an unknown token);
     throws Refused for a tap the server would refuse (after 过A, beyond the round's deals).
     ``timeDeals``: time was called on equal levels after that many deals (RuleSet.at_time:
     they were the regular deals, the extra deal follows). */
  function compute(data, words, start, tokens, timeDeals) {
    var sid = data.starts[start[0] + ":" + start[1]];
    if (sid === undefined || data.deal_points) {
      return null; // a deal-points match (RULES.md §9) is not replayed: its taps queue
    }
    var called = timeDeals !== undefined && timeDeals !== null;
    // The deals before the extra deal: the round's, or those played when time was called.
    var maxDeals = data.max_deals;
    if (called) {
      maxDeals = maxDeals === null ? timeDeals : Math.min(timeDeals, maxDeals);
    }
    var deals = 0;
    var rows = [];
    var stageFailures = { NS: 0, EW: 0 };
    // RULES.md §9 first_to_level: where each side last changed level (-1: not since the start).
    var arrived = [-1, -1];
    var extraWinner = "";
    var level = function (n) { return words.levels[String(n)]; };
    var side = function (code) { return words.sides[SIDES[code]]; };
    for (var i = 0; i < tokens.length; i++) {
      var move = data.tokens[tokens[i]];
      if (move === undefined) {
        return null;
      }
      var state = data.states[sid];
      if (state[0] === data.past_ace || state[1] === data.past_ace) {
        throw new Refused("event_after_past_a");
      }
      deals += 1;
      var extra = false;
      if (maxDeals !== null && deals > maxDeals) {
        var plays = data.tie === "extra_deal";
        extra = deals === maxDeals + 1 && plays;
        if (plays && deals > maxDeals + 1) {
          throw new Refused("event_after_extra_deal");
        }
        if (!extra) {
          throw new Refused("too_many_deals");
        }
        if (state[0] !== state[1]) {
          throw new Refused("extra_deal_without_tie");
        }
        extraWinner = SIDES[data.moves[move][0] + 1];
      }
      var packed = extra && data.extra_from_two ? sid * 27 : data.next[sid][move];
      sid = Math.floor(packed / 27);
      var attempt = Math.floor(packed / 9) % 3;
      var reset = Math.floor(packed / 3) % 3;
      var failure = packed % 3;
      var after = data.states[sid];
      if (after[0] !== state[0]) {
        arrived[0] = i;
      }
      if (after[1] !== state[1]) {
        arrived[1] = i;
      }
      var note = "";
      if (data.a_fail_count === "stage" && failure) {
        var count = (stageFailures[SIDES[failure]] += 1);
        if (reset) {
          stageFailures[SIDES[reset]] = 0;
          note = format(words.notes.reset_stage, { side: side(reset), n: count });
        } else {
          note = format(words.notes.fail_stage, { side: side(failure), n: count });
        }
      } else if (reset) {
        note = format(words.notes.reset, { side: side(reset), n: data.a_attempts });
      } else if (Math.max(after[0], after[1]) === data.past_ace) {
        note = words.notes.past_ace;
      } else if (attempt) {
        note = format(words.notes.attempt, { side: side(attempt) });
      }
      if (extra) {
        var extraWords = words.extra_deal;
        if (data.extra_from_two) {
          extraWords += "（" + words.status.extra_from_two + "）";
        }
        note = note ? extraWords + "；" + note : extraWords;
      }
      var fromTwo = extra && data.extra_from_two;
      rows.push({
        number: i + 1,
        deal_number: deals,
        kind: tokens[i].indexOf(":") < 0 ? "deal" : tokens[i].split(":")[0],
        token: tokens[i],
        description: words.describe[tokens[i]],
        level_played: level(fromTwo ? 2 : state[5]),
        on_stage: side(fromTwo ? 0 : state[2]),
        ns_level: level(after[0]),
        ew_level: level(after[1]),
        note: note
      });
    }
    var last = data.states[sid];
    var ns = last[0];
    var ew = last[1];
    var onStage = SIDES[last[2]];
    var passedA = ns === data.past_ace ? "NS" : ew === data.past_ace ? "EW" : "";
    var extraPlayed = maxDeals !== null && deals > maxDeals;
    var allPlayed = data.max_deals !== null && deals >= data.max_deals;
    var extraNext = data.tie === "extra_deal" && maxDeals !== null && deals === maxDeals &&
      ns === ew && !passedA;
    var finished = Boolean(passedA) || extraPlayed || (allPlayed && !extraNext);
    // Timed, level and time not called (tie extra_deal): the extra deal decides, never a draw.
    var timedTie = data.timed && data.tie === "extra_deal" && !called && ns === ew && !passedA;
    var nextLevel = last[2] ? last[last[2] - 1] : Math.min(ns, ew);
    if (extraNext && data.extra_from_two) {
      nextLevel = 2; // RULES.md §9: the extra deal is played at 2 by both sides
    }
    var jc = Math.abs(ns - ew);
    var leader = ns > ew ? "NS" : ew > ns ? "EW" : "";
    if (!leader && extraPlayed) {
      leader = extraWinner; // RULES.md §2: the extra deal decides, a 1-level win
    } else if (!leader && data.tie === "first_to_level" && arrived[0] !== arrived[1]) {
      leader = arrived[0] < arrived[1] ? "NS" : "EW"; // RULES.md §9: first at the level
    }
    if (leader && jc === 0) {
      jc = 1;
    }
    var scale = data.scale[Math.min(jc, data.scale.length - 1)];
    var points = data.points;
    var status = "";
    if (passedA) {
      status = format(words.status.passed_a, { side: words.sides[passedA] });
    } else if (extraPlayed) {
      status = words.status.extra_played;
    } else if (extraNext) {
      status = words.status.extra_next;
    } else if (allPlayed) {
      status = format(words.status.all_played, { n: deals });
    }
    return {
      rows: rows,
      ns_level: level(ns),
      ew_level: level(ew),
      recorded_ns_level: level(ns),
      recorded_ew_level: level(ew),
      next_level: finished ? "" : level(nextLevel),
      on_stage: onStage,
      deals: deals,
      // The extra deal is counted apart from the regular deals ("8/8+1", a timed game "12+1").
      deals_label: (function () {
        var regular = extraPlayed ? deals - 1 : deals;
        var label = data.max_deals === null ? String(regular) : regular + "/" + data.max_deals;
        return extraPlayed ? label + "+1" : label;
      })(),
      jc: jc,
      leader: leader,
      leader_label: leader ? words.sides[leader] : words.draw,
      finished: finished,
      closable: finished || (data.timed && deals > 0 && !extraNext && !timedTie),
      status_line: status,
      ns_jcf: leader === "EW" ? scale[1] : scale[0],
      ew_jcf: leader === "EW" ? scale[0] : scale[1],
      ns_cf: leader === "NS" ? points[0] : leader === "EW" ? points[2] : points[1],
      ew_cf: leader === "EW" ? points[0] : leader === "NS" ? points[2] : points[1],
      error: "",
      may_call_time: timedTie && deals > 0 && !extraNext,
      match: null, // a knockout match is not replayed (docs/offline.md)
      extra_deal_next: extraNext
    };
  }

  var api = { compute: compute, Refused: Refused };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;
  } else {
    root.SheetRules = api;
  }
})(this);
