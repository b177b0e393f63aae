"""Case families for gen.py: each writes input files and adds cases.

A family is a function (cases, store, tasks); tasks is scan.scan()'s
answer, so options and rules come from the real task files. Families are
deterministic (fixed seeds), so a rerun writes the same files.
"""

import copy
import io
import itertools
import json
import os
import random
import tempfile

from gen import F, T, soffice_convert


def uses(tasks, metric):
    return [u for u in tasks["uses"] if u["func"] == metric]


def rules_of(u):
    e = u["expected"]
    if isinstance(e, dict) and e.get("type") in ("rule", "rule_relativeTime"):
        return e.get("rules")
    return None


def distinct(seq):
    out, seen = [], set()
    for x in seq:
        k = json.dumps(x, sort_keys=True, ensure_ascii=False)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def text(store, s, ext="txt", encoding="utf-8"):
    return F(store.put(s.encode(encoding), ext))


# Unicode where Python's str.lower differs from a naive lower-casing: the
# Turkish dotted capital I, final sigma, German sharp s, ligatures, titlecase
# digraphs, Cherokee, Georgian Mtavruli, Greek with ypogegrammeni.
UNICODE_CASE = ["İstanbul", "ΣΊΣΥΦΟΣ", "STRASSE", "Straße", "ǅemal", "ﬁle", "ᏣᎳᎩ", "ᲛᲐᲠᲘ", "ᾼ", "Ω", "K", "Å",
                "MÜNCHEN", "ÆSIR", "Ǉ", "ΆΈΉ"]


# ---------------------------------------------------------------- values

def str_variants(s):
    out = [s, s.upper(), s.lower(), " " + s, s + "\n", s + " ", s[:-1] if s else "x", s + s[-1:] if s else "",
           s.replace(" ", "  "), "", None, 1, [s], {"v": s}]
    return out


def fam_values(cases, store, tasks):
    # exact_match, match_in_list, is_in_list, fuzzy_match, check_include_exclude
    for metric in ["exact_match", "match_in_list", "is_in_list", "fuzzy_match", "check_include_exclude",
                   "is_extension_installed", "check_gnome_favorite_apps", "check_moved_jpgs"]:
        rs = distinct(rules_of(u) for u in uses(tasks, metric))
        for rules in rs:
            if rules is None:
                continue
            exp = rules.get("expected", rules.get("include"))
            seeds = exp if isinstance(exp, list) else [exp]
            cand = []
            for s in seeds[:3]:
                if isinstance(s, str):
                    cand += str_variants(s)
                else:
                    cand += [s, str(s), None]
            if metric == "check_include_exclude":
                for ex in rules.get("exclude", [])[:2]:
                    cand.append(" ".join(str(x) for x in seeds) + " " + ex)
                    cand.append(ex)
                cand.append("\n".join(str(x) for x in seeds))
            if metric == "check_gnome_favorite_apps":
                cand += [str(seeds), "['" + "', '".join(seeds) + "']", "['" + "', '".join(reversed(seeds)) + "']",
                         "['" + "', '".join(seeds + ["x.desktop"]) + "']", "@as []"]
            if metric == "check_moved_jpgs":
                cand = [{"name": "cpjpg", "children": [{"name": n, "type": "file"} for n in lst]}
                        for lst in [list(seeds), list(reversed(seeds)), seeds[:-1], seeds + ["x.jpg"], [], seeds + seeds[:1]]]
            if metric == "is_extension_installed":
                cand += ["%s\nother.ext\n" % seeds[0], "", "other"]
            if isinstance(exp, list) and metric in ("match_in_list", "is_in_list"):
                cand += [list(exp), exp[:1]]
            for c in distinct(cand):
                if c is None and metric in ("fuzzy_match",):
                    continue
                cases.add(metric, c, rules, note="task rules")
    # unicode case folding and types on exact_match / match_in_list
    for s in UNICODE_CASE:
        cases.add("exact_match", s.lower(), {"expected": s.lower()}, note="unicode")
        cases.add("match_in_list", s, {"expected": [s.lower(), s.upper()]}, note="unicode")
        cases.add("fuzzy_match", s.lower(), {"expected": s}, note="unicode")
    for a, b in [(1, 1.0), (True, 1), ("1", 1), ([1, 2], [1, 2]), ({"a": 1}, {"a": 1}), (None, None), (0.1 + 0.2, 0.3)]:
        cases.add("exact_match", a, {"expected": b}, note="python equality")
    # literal_match: options from the task plus the other types
    for u in uses(tasks, "literal_match"):
        opts = u["options"] or {}
        for res, exp in [(["A", "b"], ["a", "B"]), (["A", "b"], ["a", "c"]), ("['A', 'b']", ["a", "b"]),
                         ("Ab", "ab"), (["İ"], ["i̇"]), ([], []), (["x"], ["X", "y"]), ('["Q"]', ["q"])]:
            cases.add("literal_match", res, exp, options=opts, note="task options")
    for t in ["str", "list", "set"]:
        for ic in [True, False]:
            for res, exp in [("Abc", "abc"), ("abc", "abc"), ("[1, 2]", [1, 2]), ("{1, 2}", [2, 1]), ("ΣΑΣ", "σας"),
                             (["a"], ["A"])]:
                cases.add("literal_match", res, exp, options={"type": t, "ignore_case": ic}, note="types")
    # check_direct_json_object
    for u in uses(tasks, "check_direct_json_object"):
        rules = rules_of(u)
        if not isinstance(rules, dict) or "expected" not in rules:
            continue
        exp = rules["expected"]
        good = {}
        for k, v in exp.items():
            good[k] = v[0] if isinstance(v, list) and rules.get("expect_in_result") else v
        variants = [good, dict(good, extra="x"), {k: v for k, v in list(good.items())[1:]}, {},
                    json.dumps(good), json.dumps(good).replace('"', "'"), " " + json.dumps(good) + "\n", None]
        k0 = next(iter(exp))
        bad = dict(good)
        bad[k0] = "zzz" if not isinstance(good[k0], bool) else (not good[k0])
        variants.append(bad)
        if isinstance(good[k0], str):
            up = dict(good)
            up[k0] = good[k0].upper()
            variants.append(up)
            longer = dict(good)
            longer[k0] = "before " + good[k0] + " after"
            variants.append(longer)
        if isinstance(exp[k0], list):
            lst = dict(good)
            lst[k0] = list(reversed(exp[k0]))
            variants.append(lst)
            lst2 = dict(good)
            lst2[k0] = exp[k0] + ["other"]
            variants.append(lst2)
        for v in variants:
            cases.add("check_direct_json_object", v, rules, note="task rules")
    # expect_in_result with string and list results, ignore_list_order
    r = {"expected": {"q": "coffee", "t": ["a", "b"]}, "expect_in_result": True}
    for v in [{"q": "drip coffee maker", "t": "a"}, {"q": "coffee", "t": ["b", "c"]}, {"q": "Coffee", "t": "a"},
              {"q": "coffee", "t": "c"}, {"q": None, "t": "a"}, {"q": "coffee", "t": 3}, {"t": "a"},
              '{"q": "coffee", "t": "b"}', "{'q': 'a coffee', 't': ['a']}"]:
        cases.add("check_direct_json_object", v, r, note="expect_in_result")
    r = {"expected": {"m": ["x", "y"], "ignore_list_order": True}}
    for v in [{"m": ["y", "x"]}, {"m": ["x"]}, {"m": "yx"}]:
        cases.add("check_direct_json_object", v, r, note="ignore_list_order inside expected")
    r = {"expected": {"k": "__EVALUATION_FAILED__"}}
    cases.add("check_direct_json_object", {"k": "__EVALUATION_FAILED__"}, r, note="failure marker")
    # URL metrics
    for metric in ["is_expected_url_pattern_match", "is_expected_active_tab", "is_expected_active_tab_approximate",
                   "is_expected_tabs", "is_expected_search_query", "is_added_to_steam_cart",
                   "is_shortcut_on_desktop", "check_font_size", "is_expected_installed_extensions",
                   "is_expected_bookmarks"]:
        for u in uses(tasks, metric):
            rules = rules_of(u)
            if rules is None:
                continue
            for v in url_results(metric, rules):
                cases.add(metric, v, rules, note="task rules")
    # is_utc_0
    for out in ["               Local time: Mon 2024-01-01 10:00:00 UTC\n           Universal time: Mon 2024-01-01 10:00:00 UTC\n                Time zone: Etc/UTC (UTC, +0000)\n",
                "                Time zone: America/New_York (EST, -0500)\n",
                "                Time zone: Europe/London (GMT, +0000)\n", "", "Time zone: UTC (UTC, +0000)"]:
        cases.add("is_utc_0", out, None, args="result_only", note="timedatectl")
    # is_vlc_fullscreen
    for w, s in [({"width": 1920, "height": 1080}, {"width": 1920, "height": 1080}),
                 ({"width": 1280, "height": 720}, {"width": 1920, "height": 1080}),
                 ({"width": 1920, "height": 1053}, {"width": 1920, "height": 1080}), (None, {"width": 1, "height": 1})]:
        cases.add("is_vlc_fullscreen", w, s, note="sizes")
    # is_in_vm_clickboard
    for cfg, out in [({"expected": ["hello"]}, "hello\n"), ({"expected": "hello"}, "hello"),
                     ({"expected": ["a", "b"]}, "a b"), ({"expected": ["x"]}, "y")]:
        cases.add("is_in_vm_clickboard", cfg, out, note="terminal")


def url_results(metric, rules):
    if metric == "is_expected_url_pattern_match":
        pats = rules.get("expected", [])
        base = [p.strip("^$").replace("\\.", ".").replace("(www.)?", "www.").replace("(/.*)?", "/x").replace("/?", "/")
                .replace("\\?", "?") for p in pats]
        out = []
        for b in base[:2]:
            url = b if b.startswith("http") or b.startswith("chrome") else "https://example.com/" + b.lstrip("/")
            out += [url, {"url": url}, {"url": url.upper()}, {"url": url + "#frag"}, {"url": "https://other.org/"}]
        out += [None, "", {"title": "x"}]
        return out
    if metric in ("is_expected_active_tab", "is_expected_active_tab_approximate"):
        url = rules.get("url", "")
        return [{"url": url}, {"url": url + "/"}, {"url": url + "?a=1"}, {"url": url.replace("https://", "http://")},
                {"url": url.replace("www.", "")}, {"url": "https://other.org/"}, url, None, {"title": "t"},
                {"url": url + "#x"}, {"url": url.upper()}]
    if metric == "is_expected_tabs":
        urls = rules.get("urls", [])
        return [[{"url": u} for u in urls], [{"url": u + "/"} for u in urls], [{"url": u} for u in reversed(urls)],
                [{"url": u} for u in urls[:-1]], [{"url": u} for u in urls] + [{"url": "https://x.org"}],
                [{"url": u.replace("https://www.", "https://")} for u in urls], []]
    if metric == "is_expected_search_query":
        exp = rules.get("expect", {})
        pat = exp.get("pattern", "") if isinstance(exp, dict) else ""
        return [{"url": "https://www.google.com/search?q=" + pat}, {"url": "https://www.google.com/"},
                {"url": pat}, {"url": ""}]
    if metric == "is_added_to_steam_cart":
        items = rules.get("items", [])
        return [{"content": " ".join(items) + " in cart"}, {"content": "empty"}, {"content": items[0].upper()}]
    if metric == "is_shortcut_on_desktop":
        name = rules.get("name", "")
        return [{"/home/user/Desktop/x.desktop": "[Desktop Entry]\nName=%s\nExec=x\n" % name},
                {"/home/user/Desktop/x.desktop": "[Desktop Entry]\nName=Other\n"}, {}]
    if metric == "check_font_size":
        return [{"default_font_size": 16}, {"default_font_size": 15}, {"default_font_size": 99999},
                {"default_font_size": 100000}, {"default_font_size": 20.5}]
    if metric == "is_expected_installed_extensions":
        exp = rules.get("expected", [])
        return [list(exp), list(exp) + ["other"], list(exp)[:-1], []]
    if metric == "is_expected_bookmarks":
        if rules.get("type") == "bookmark_bar_folders_names":
            names = rules.get("names", [])
            return [{"bookmark_bar": {"children": [{"type": "folder", "name": n, "children": []} for n in names]}},
                    {"bookmark_bar": {"children": [{"type": "folder", "name": "Other", "children": []}]}},
                    {"bookmark_bar": {"children": [{"type": "url", "name": n, "url": "https://a"} for n in names]}}]
        if rules.get("type") == "bookmark_bar_websites_urls":
            urls = rules.get("urls", [])
            return [{"bookmark_bar": {"children": [{"type": "url", "name": "x", "url": u} for u in urls]}},
                    {"bookmark_bar": {"children": [{"type": "url", "name": "x", "url": u + "x"} for u in urls]}},
                    {"bookmark_bar": {"children": []}}]
    return [None]


REGISTRY = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
%s
</oor:items>
"""


def reg_item(path, name, value):
    return '<item oor:path="%s"><prop oor:name="%s" oor:op="fuse"><value>%s</value></prop></item>' % (path, name, value)


def fam_textfiles(cases, store, tasks):
    # check_list: a listing, patterns from the tasks
    for u in uses(tasks, "check_list"):
        rules = rules_of(u)
        exp = rules.get("expect", [])
        lines_ok = []
        for p in exp:
            lit = p.replace("\\b", "").replace("\\.", ".").replace(".*", "x").replace("/?(?!.msf)", "").replace("(?!\\.msf)", "")
            lit = lit.replace("\\", "")
            lines_ok.append(lit)
        for lines in [lines_ok, lines_ok[:-1], lines_ok + ["other"], [l.upper() for l in lines_ok], [],
                      [" ".join(lines_ok)]]:
            cases.add("check_list", text(store, "\n".join(lines) + "\n"), rules, note="task rules")
    for rules, body in [({"expect": ["a+"], "unexpect": ["b"]}, "aaa\nc\n"), ({"expect": ["a+"], "unexpect": ["b"]}, "aaa\nb\n"),
                        ({"expect": ["^x$"]}, "x\n"), ({"expect": ["^x$"]}, "x"), ({"expect": ["x$"]}, "x\r\n"),
                        ({"expect": ["(?i)ABC"]}, "abc"), ({"expect": ["\\d{3}"]}, "12\n3"), ({"unexpect": ["."]}, ""),
                        ({"expect": []}, "")]:
        cases.add("check_list", text(store, body), rules, note="regex semantics")
    cases.add("check_list", None, {"expect": ["a"]}, note="no file")
    # check_csv
    for u in uses(tasks, "check_csv"):
        rules = rules_of(u)
        un = rules.get("unexpect", [{}])[0]
        keys = list(un)
        for rows in [[un], [dict((k, v + "x") for k, v in un.items())], [], [dict(un, extra="1")]]:
            body = ",".join(keys + ["extra"]) + "\n" + "".join(",".join([r.get(k, "") for k in keys] + [r.get("extra", "")]) + "\n" for r in rows)
            cases.add("check_csv", text(store, body, "csv"), rules, note="task rules")
            r2 = {"expect": rules.get("unexpect")}
            cases.add("check_csv", text(store, body, "csv"), r2, note="expect")
    # check_json (json and yaml)
    for u in uses(tasks, "check_json"):
        rules = rules_of(u)
        opts = u["options"] or {}
        r0 = rules["expect"][0]
        key = r0["key"]
        for val in [r0.get("ref"), "smart", "all smart folders", "unsmart", 1, None, ["smart"], "Smart"]:
            doc = val
            for k in reversed(key):
                doc = {k: doc}
            if opts.get("is_yaml"):
                import yaml
                body = yaml.safe_dump(doc, allow_unicode=True)
                cases.add("check_json", text(store, body, "yaml"), rules, options=opts, note="task rules yaml")
            else:
                cases.add("check_json", text(store, json.dumps(doc), "json"), rules, options=opts, note="task rules")
        cases.add("check_json", text(store, "{not json", "json"), rules, options=opts, note="broken")
        cases.add("check_json", text(store, "", "json"), rules, options=opts, note="empty")
    # check_json_settings / check_json_keybindings / compare_config
    for metric in ["check_json_settings", "check_json_keybindings", "compare_config"]:
        for u in uses(tasks, metric):
            rules = rules_of(u)
            opts = u["options"] or {}
            exp = rules["expected"]
            try:
                expo = json.loads(exp) if isinstance(exp, str) else exp
            except ValueError:
                expo = {"text": exp}
            if not isinstance(expo, dict) or not expo:
                expo = {"value": expo}
            if metric == "check_json_keybindings":
                bodies = [[expo], [{"key": "x", "command": "y"}, expo], [dict(expo, key=expo["key"].upper())], [],
                          [{k: v for k, v in expo.items() if k != "when"}], {"k": expo}]
                bodies = [json.dumps(b, indent=4) for b in bodies] + ["// comment\n" + json.dumps([expo]), "[", ""]
            else:
                k0 = next(iter(expo))
                bodies = [expo, dict(expo, other=1), {k0: "different"}, {}, {"nest": expo}]
                if isinstance(expo[k0], dict):
                    d = copy.deepcopy(expo)
                    d[k0]["extra"] = True
                    bodies.append(d)
                bodies = [json.dumps(b, indent=4) for b in bodies]
                bodies += [json.dumps(expo), json.dumps(expo, indent=2) + "\n", "{\n  // c\n" + json.dumps(expo)[1:],
                           "{,}", "", json.dumps(expo) + json.dumps({"a": 1})]
                if isinstance(exp, str):
                    bodies += [exp, exp.strip(), "prefix " + exp]
            for b in bodies:
                cases.add(metric, text(store, b, "json"), rules, options=opts, note="task rules")
                if metric == "compare_config":
                    cases.add(metric, text(store, b, "json"), rules, options={"containment_ok": False}, note="strict")
                    cases.add(metric, text(store, b, "json"), rules, note="default containment")
    # file_contains / check_line_number
    for u in uses(tasks, "file_contains"):
        rules = rules_of(u)
        exp = rules["expected"]
        for body in ["\n".join(exp), "\n".join(exp[:-1]), " ".join(exp).upper(), ""]:
            cases.add("file_contains", text(store, body), rules, note="task rules")
        cases.add("file_contains", None, rules, note="no file")
    for u in uses(tasks, "check_line_number"):
        rules = rules_of(u)
        n = int(rules["expected"])
        for k in [n - 1, n, n + 1, 0]:
            body = "".join("line %d\n" % i for i in range(k))
            cases.add("check_line_number", text(store, body), rules, note="task rules")
            cases.add("check_line_number", text(store, body.rstrip("\n")), rules, note="no final newline")
    # diff_text_file / compare_text_file / compare_python_pure_text
    texts = ["a\nb\nc\n", "a\nb\nc", "a\nB\nc\n", "a\n\nb\nc\n", "  a\n b \nc\n", "c\nb\na\n", "", "a\r\nb\r\nc\r\n",
             "x = 1\n\n\ndef f():\n    return x\n", "x=1\ndef f():\n  return x\n", "# c\nx = 1\ndef f():\n    return x\n"]
    for a, b in itertools.product(range(len(texts)), repeat=2):
        if (a + b) % 2 == 0 or a == b:
            for opts in [{"ignore_blanks": True}, {}, {"ignore_case": True}, {"ignore_blanks": True, "ignore_case": True}]:
                cases.add("compare_text_file", text(store, texts[a]), text(store, texts[b]), options=opts, note="pair")
            cases.add("diff_text_file", text(store, texts[a]), text(store, texts[b]), note="pair")
            cases.add("compare_python_pure_text", text(store, texts[a], "py"), text(store, texts[b], "py"), note="pair")
    # thunderbird prefs and filters
    for u in uses(tasks, "check_thunderbird_prefs"):
        rules = rules_of(u)
        prefs = []
        for k, r in rules.get("expect", {}).items():
            prefs.append((k, r["ref"]))
        for k, r in rules.get("unexpect", {}).items():
            prefs.append((k, r["ref"]))
        def line(k, v):
            return 'user_pref("%s", %s);' % (k, json.dumps(v))
        bodies = ["\n".join(line(k, v) for k, v in prefs),
                  "\n".join(line(k, v) for k, v in prefs[:1]),
                  "\n".join(line(k, (not v) if isinstance(v, bool) else "other") for k, v in prefs),
                  "// Mozilla User Preferences\n\n" + "\n".join(line(k, v) for k, v in prefs) + "\n",
                  ""]
        for b in bodies:
            cases.add("check_thunderbird_prefs", text(store, b, "js"), rules, note="task rules")
    for u in uses(tasks, "check_thunderbird_filter"):
        rules = rules_of(u)
        e = rules["expect"][0]
        def filt(name, enabled, action, value, cond):
            s = 'name="%s"\nenabled="%s"\ntype="17"\naction="%s"\n' % (name, enabled, action)
            if value:
                s += 'actionValue="%s"\n' % value
            return s + 'condition="%s"\n' % cond
        head = 'version="9"\nlogging="no"\n'
        cond = e["condition"][0]
        for b in [head + filt("f", e["enabled"], e["action"], e.get("actionValue"), cond),
                  head + filt("f", "no", e["action"], e.get("actionValue"), cond),
                  head + filt("f", e["enabled"], e["action"], "other", cond),
                  head, head + filt("g", "yes", "Mark read", None, "ALL") + filt("f", e["enabled"], e["action"], e.get("actionValue"), cond)]:
            cases.add("check_thunderbird_filter", text(store, b, "dat"), rules, note="task rules")
    # VLC configuration checks
    for metric, key in [("check_global_key_play_pause", "global-key-play-pause"), ("check_qt_max_volume", "qt-max-volume"),
                        ("check_qt_minimal_view", "qt-minimal-view"), ("check_play_and_exit", "play-and-exit"),
                        ("check_one_instance_when_started_from_file", "one-instance-when-started-from-file"),
                        ("check_qt_bgcone", "qt-bgcone"), ("check_qt_slider_colours", "qt-slider-colours"),
                        ("is_vlc_recordings_folder", "input-record-path")]:
        for u in uses(tasks, metric):
            rules = rules_of(u)
            vals = ["", "0", "1", "125", "200", "Space", "/home/user/Desktop", "/home/user/Desktop/", "/tmp",
                    "153;210;153;20;210;20;255;199;15;245;39;29", "0;0;0;0;0;0;0;0;0;0;0;0", "255;255;255;20;210;20;255;199;15;245;39;29"]
            for v in vals:
                for body in ["[qt]\n# c\n%s=%s\n" % (key, v), "[qt]\n#%s=%s\n" % (key, v)]:
                    cases.add(metric, text(store, body, "vlcrc"), rules, note="task rules")
            cases.add(metric, text(store, "[core]\n", "vlcrc"), rules, note="absent")
    # GIMP configuration
    for u in uses(tasks, "check_config_status"):
        rules = rules_of(u)
        # the tasks spell the type key "type:"; the metric reads key and value
        k, v = rules["key"], rules["value"]
        for body in ["# gimprc\n\n(%s %s)\n" % (k, v), "(%s %s)" % (k, v), "(%s other)\n" % k, "(other %s)\n" % v,
                     "# (%s %s)\n" % (k, v), "(%s\t%s)\n" % (k, v), "\n(a b)\n(%s %s)\n" % (k, v)]:
            cases.add("check_config_status", text(store, body, "rc"), rules, note="task rules")
    # LibreOffice registry settings
    for u in uses(tasks, "find_default_font"):
        rules = rules_of(u)
        for font in [rules["font_name"], "Liberation Serif", rules["font_name"].upper()]:
            body = REGISTRY % reg_item("/org.openoffice.Office.Writer/DefaultFont", "Standard", font)
            cases.add("find_default_font", text(store, body, "xcu"), rules, note="task rules")
        cases.add("find_default_font", text(store, REGISTRY % "", "xcu"), rules, note="absent")
    for u in uses(tasks, "check_auto_saving_time"):
        rules = rules_of(u)
        for m in [rules["minutes"], rules["minutes"] + 1, "x"]:
            body = REGISTRY % reg_item("/org.openoffice.Office.Common/Save/Document", "AutoSaveTimeIntervall", m)
            cases.add("check_auto_saving_time", text(store, body, "xcu"), rules, note="task rules")
        cases.add("check_auto_saving_time", text(store, REGISTRY % "", "xcu"), rules, note="absent")
        cases.add("check_auto_saving_time", text(store, "<oops", "xcu"), rules, note="broken")
    for v in ["false", "true", "False", "FALSE", ""]:
        body = REGISTRY % reg_item("/org.openoffice.Office.Impress/Misc/Start", "EnablePresenterScreen", v)
        cases.add("check_presenter_console_disable", text(store, body, "xcu"), None, args="result_only", note="value")
    cases.add("check_presenter_console_disable", text(store, REGISTRY % "", "xcu"), None, args="result_only", note="absent")


FAMILIES = [
    ("values", fam_values),
    ("textfiles", fam_textfiles),
]


# ---------------------------------------------------------------- csv

def fam_csv(cases, store, tasks):
    base = ["Name,Score,City", "Alice,90,Zürich", "Bob,85,İzmir", "Ünal,70,STRASSE"]
    variants = {
        "same": base,
        "upper": [l.upper() for l in base],
        "lower": [l.lower() for l in base],
        "spaces": [" " + l + " " for l in base],
        "blank_end": base + ["", ""],
        "crlf": None,
        "reordered": [base[0], base[2], base[1], base[3]],
        "fewer": base[:-1],
        "bom": None,
        "quoted": ['"Name","Score","City"'] + base[1:],
    }
    encs = [("utf-8", "same"), ("utf-8-sig", "same"), ("latin-1", "same_latin"), ("gbk", "gbk"), ("cp1251", "cyr")]
    files = {}
    for k, lines in variants.items():
        if k == "crlf":
            files[k] = text(store, "\r\n".join(base) + "\r\n", "csv")
        elif k == "bom":
            files[k] = F(store.put(("\n".join(base) + "\n").encode("utf-8-sig"), "csv"))
        else:
            files[k] = text(store, "\n".join(lines) + "\n", "csv")
    files["latin1"] = F(store.put("Name,City\nAlice,Zürich\n".encode("latin-1"), "csv"))
    files["latin1_utf8"] = text(store, "Name,City\nAlice,Zürich\n", "csv")
    files["gbk"] = F(store.put("名字,城市\n张三,北京\n".encode("gbk"), "csv"))
    files["gbk_utf8"] = text(store, "名字,城市\n张三,北京\n", "csv")
    files["cp1251"] = F(store.put("Имя,Город\nИван,Москва\n".encode("cp1251"), "csv"))
    files["cp1251_utf8"] = text(store, "Имя,Город\nИван,Москва\n", "csv")
    files["empty"] = text(store, "", "csv")
    files["bad"] = F(store.put(b"a,b\n\xff\xfe\x81\n", "csv"))
    names = list(files)
    optsets = [{}, {"strict": False}, {"ignore_case": True}, {"strict": False, "ignore_case": True}, {"strict": True}]
    for u in uses(tasks, "compare_csv"):
        if u["options"]:
            optsets.append(u["options"])
    optsets = distinct(optsets)
    for a in names:
        for b in names:
            if a == b or a.split("_")[0] == b.split("_")[0] or "same" in (a, b):
                for o in optsets:
                    cases.add("compare_csv", files[a], files[b], options=o, note="%s vs %s" % (a, b))
    # expected as a list of files
    for a in ["same", "upper", "fewer", "latin1"]:
        for lst in [["fewer", "same"], ["upper", "lower"], ["latin1_utf8", "gbk"], []]:
            for o in [{}, {"ignore_case": True}]:
                cases.add("compare_csv", files[a], [files[x] for x in lst], options=o, note="list %s vs %s" % (a, lst))
    cases.add("compare_csv", None, files["same"], note="no result")
    cases.add("compare_csv", files["same"], [files["same"], {"file": files["fewer"]["file"], "as": "missing/none.csv"}],
              note="list with a second file")


# ---------------------------------------------------------------- xlsx

def _wb(spec):
    """Build an openpyxl workbook from SPEC: {"sheets": [(name, rows)], plus extras}."""
    import openpyxl
    from openpyxl.styles import Font, PatternFill
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in spec["sheets"]:
        ws = wb.create_sheet(name)
        for r in rows:
            ws.append(r)
    ws = wb[spec["sheets"][0][0]]
    if spec.get("freeze"):
        ws.freeze_panes = spec["freeze"]
    if spec.get("zoom"):
        ws.sheet_view.zoomScale = spec["zoom"]
    if spec.get("merge"):
        ws.merge_cells(spec["merge"])
    if spec.get("fill"):
        for coord, color in spec["fill"].items():
            ws[coord].fill = PatternFill(fill_type="solid", fgColor=color, bgColor="FFFFFF00")
    if spec.get("font_color"):
        for coord, color in spec["font_color"].items():
            ws[coord].font = Font(color=color, bold=spec.get("bold", False))
    if spec.get("hidden_rows"):
        for r in spec["hidden_rows"]:
            ws.row_dimensions[r].hidden = True
    if spec.get("dv"):
        from openpyxl.worksheet.datavalidation import DataValidation
        for t, f1, rng in spec["dv"]:
            dv = DataValidation(type=t, formula1=f1, allow_blank=True)
            dv.add(rng)
            ws.add_data_validation(dv)
    if spec.get("chart"):
        from openpyxl.chart import BarChart, LineChart, PieChart, Reference
        kind, title, direction = spec["chart"]
        ch = {"bar": BarChart, "line": LineChart, "pie": PieChart}[kind]()
        if title:
            ch.title = title
        if direction and kind == "bar":
            ch.type = direction
        data = Reference(ws, min_col=2, min_row=1, max_row=4)
        ch.add_data(data, titles_from_data=True)
        ch.set_categories(Reference(ws, min_col=1, min_row=2, max_row=4))
        ws.add_chart(ch, "F2")
    b = io.BytesIO()
    wb.save(b)
    return b.getvalue()


def _inline_strings(xlsx):
    """Rewrite shared-string cells of sheet1 as inline strings (t="inlineStr"),
    as some writers do."""
    import re
    import zipfile
    zin = zipfile.ZipFile(io.BytesIO(xlsx))
    sst = []
    if "xl/sharedStrings.xml" in zin.namelist():
        s = zin.read("xl/sharedStrings.xml").decode()
        sst = [re.sub(r"<[^>]+>", "", m) for m in re.findall(r"<si>(.*?)</si>", s, re.S)]
    out = io.BytesIO()
    zout = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)
    for n in zin.namelist():
        data = zin.read(n)
        if n == "xl/worksheets/sheet1.xml":
            s = data.decode()

            def rep(m):
                attrs, idx = m.group(1), int(m.group(2))
                attrs = attrs.replace(' t="s"', ' t="inlineStr"')
                return "<c%s><is><t>%s</t></is></c>" % (attrs, sst[idx] if idx < len(sst) else "")
            s = re.sub(r'<c([^>]*t="s"[^>]*)><v>(\d+)</v></c>', rep, s)
            data = s.encode()
        zout.writestr(n, data)
    zout.close()
    return out.getvalue()


def _error_cells(xlsx):
    """Put error values (#DIV/0!, #N/A) into sheet1's first data cells."""
    import re
    import zipfile
    zin = zipfile.ZipFile(io.BytesIO(xlsx))
    out = io.BytesIO()
    zout = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)
    for n in zin.namelist():
        data = zin.read(n)
        if n == "xl/worksheets/sheet1.xml":
            s = data.decode()
            s = re.sub(r'<c r="B2"([^>]*)>.*?</c>', '<c r="B2" t="e"><f>1/0</f><v>#DIV/0!</v></c>', s, count=1, flags=re.S)
            s = re.sub(r'<c r="B3"([^>]*)>.*?</c>', '<c r="B3" t="e"><v>#N/A</v></c>', s, count=1, flags=re.S)
            data = s.encode()
        zout.writestr(n, data)
    zout.close()
    return out.getvalue()


def fam_table(cases, store, tasks):
    import datetime
    rows = [["Name", "Value", "Date", "Flag"],
            ["alpha", 191.66666666, datetime.datetime(2024, 1, 2, 3, 4, 5, 678901), True],
            ["Beta", -154.06, datetime.date(2023, 12, 31), False],
            ["GAMMA", 603.07, "2024-05-01", None],
            [None, None, None, None],
            ["NA", "null", "TRUE", "1e3"],
            ["big", 12345678901234567890, "007", "3.10"],
            ["İstanbul", 0.1 + 0.2, "nan", ""]]
    rows2 = [list(r) for r in rows]
    rows2[1][1] = 191.6667
    rows3 = [list(r) for r in rows]
    rows3[2][0] = "beta"
    rows4 = [list(r) for r in rows[:4]]
    rows5 = [list(r) for r in rows]
    rows5[1][1] = 191.66666
    rows6 = [list(r) for r in rows]
    rows6[3][2] = datetime.datetime(2024, 5, 1)
    rows7 = [list(r) for r in rows]
    rows7[5] = ["NA", "null", True, 1000]
    base2 = [["k", "v"], ["x", 1], ["y", 2]]
    specs = {
        "base": {"sheets": [("Sheet1", rows), ("Sheet2", base2)]},
        "round4": {"sheets": [("Sheet1", rows2), ("Sheet2", base2)]},
        "round5": {"sheets": [("Sheet1", rows5), ("Sheet2", base2)]},
        "case": {"sheets": [("Sheet1", rows3), ("Sheet2", base2)]},
        "short": {"sheets": [("Sheet1", rows4), ("Sheet2", base2)]},
        "datetext": {"sheets": [("Sheet1", rows6), ("Sheet2", base2)]},
        "typed": {"sheets": [("Sheet1", rows7), ("Sheet2", base2)]},
        "renamed": {"sheets": [("Data", rows), ("Sheet2", base2)]},
        "oneSheet": {"sheets": [("Sheet1", rows)]},
        "freezeB2": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "freeze": "B2"},
        "freezeA2": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "freeze": "A2"},
        "zoom150": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "zoom": 150},
        "zoom50": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "zoom": 50},
        "merged": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "merge": "A1:B1"},
        "fillRed": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "fill": {"A2": "FFFF0000", "B2": "FF0000FF"},
                    "font_color": {"A2": "FF0000FF"}},
        "fillBlue": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "fill": {"A2": "FF0000FF", "B2": "FF0000FF"},
                     "font_color": {"A2": "FFFF0000"}, "bold": True},
        "hidden": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "hidden_rows": [3, 4]},
        "dvList": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "dv": [("list", '"Pass,Fail,Held"', "D2:D29")]},
        "dvWhole": {"sheets": [("Sheet1", rows), ("Sheet2", base2)], "dv": [("whole", "0", "D1:D1048576")]},
        "chartBar": {"sheets": [("Sheet1", [["c", "n"], ["a", 1], ["b", 2], ["c", 3]]), ("Sheet2", base2)], "chart": ("bar", "T", "col")},
        "chartBarH": {"sheets": [("Sheet1", [["c", "n"], ["a", 1], ["b", 2], ["c", 3]]), ("Sheet2", base2)], "chart": ("bar", "T", "bar")},
        "chartLine": {"sheets": [("Sheet1", [["c", "n"], ["a", 1], ["b", 2], ["c", 3]]), ("Sheet2", base2)], "chart": ("line", "T", None)},
        "chartNoTitle": {"sheets": [("Sheet1", [["c", "n"], ["a", 1], ["b", 2], ["c", 3]]), ("Sheet2", base2)], "chart": ("bar", None, "col")},
        "chartNone": {"sheets": [("Sheet1", [["c", "n"], ["a", 1], ["b", 2], ["c", 3]]), ("Sheet2", base2)]},
    }
    raw = {k: _wb(v) for k, v in specs.items()}
    raw["inline"] = _inline_strings(raw["base"])
    raw["errors"] = _error_cells(raw["base"])
    # LibreOffice re-saves of some of them
    tmp = tempfile.mkdtemp(prefix="oracle-xlsx-")
    paths = []
    for k in ["base", "round4", "case", "freezeB2", "merged", "fillRed", "dvList", "chartBar", "hidden", "zoom150", "inline", "errors"]:
        p = os.path.join(tmp, "lo_" + k + ".xlsx")
        with open(p, "wb") as f:
            f.write(raw[k])
        paths.append(p)
    conv = soffice_convert(paths, "xlsx:Calc MS Excel 2007 XML", os.path.join(tmp, "out"))
    for p, data in conv.items():
        raw[os.path.basename(p)[:-5]] = data
    files = {k: store.put(v, "xlsx") for k, v in raw.items()}
    files["broken"] = store.put(b"PK\x03\x04 not a workbook", "xlsx")

    # sheet_print needs the CSV the getter writes beside each book: <book>-<sheet>.csv
    def csv_of(rows_):
        out = io.StringIO()
        import csv
        w = csv.writer(out, lineterminator="\n")
        for r in rows_:
            w.writerow(["" if v is None else v for v in r])
        return out.getvalue()
    csvs = {"base": csv_of(rows), "case": csv_of(rows3), "short": csv_of(rows4)}

    rules_all = []
    for u in uses(tasks, "compare_table"):
        o = u["options"] or {}
        for r in o.get("rules", []):
            rules_all.append(r)
    rules_all = distinct(rules_all)
    # generic rules over both sheets, each rule type and option the tasks use
    generic = [
        {"type": "sheet_name"},
        {"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"},
        {"type": "sheet_data", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"},
        {"type": "sheet_data", "sheet_idx0": "RI1", "sheet_idx1": "EI1"},
        {"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "precision": 2},
        {"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "ignore_case": True},
        {"type": "sheet_data", "sheet_idx0": 5, "sheet_idx1": "EI0"},
        {"type": "sheet_data", "sheet_idx0": "RNNope", "sheet_idx1": "EI0"},
        {"type": "sheet_print", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"},
        {"type": "sheet_print", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1", "ignore_case": True},
        {"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "rules": [{"range": ["A1:A8"], "type": "exact_match"}]},
        {"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "rules": [{"range": ["A1:A8"], "type": "exact_match", "ignore_case": True}]},
        {"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "rules": [{"range": ["A2:B3"], "type": "fuzzy_match", "threshold": 90}]},
        {"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "rules": [{"range": ["A1:C3"], "type": "includes", "ignore_chars": " ()", "trim_leadings": "+ ", "normalization": [["Rd", "Road"]]}]},
        {"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "rules": [{"range": ["B1:B8"], "type": "included_by", "trim_trailings": "0"}]},
        {"type": "freeze", "sheet_idx0": "RI0", "sheet_idx1": "EI0"},
        {"type": "zoom", "sheet_idx": 0, "method": "gt", "ref": 100},
        {"type": "zoom", "sheet_idx": "RI0", "method": "lt", "ref": 100},
        {"type": "zoom", "sheet_idx": "RI0", "method": "eq", "ref": 100},
        {"type": "row_props", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "props": ["hidden"]},
        {"type": "col_props", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "props": ["width"]},
        {"type": "style", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "props": ["bgcolor"]},
        {"type": "style", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "props": ["font_color"]},
        {"type": "style", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "props": ["font_bold", "fill_type"]},
        {"type": "chart", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "chart_props": ["type"]},
        {"type": "chart", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "chart_props": ["type", "title"]},
        {"type": "chart", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "chart_props": ["type", "direction"]},
        {"type": "filter", "sheet_idx0": "RI0", "sheet_idx1": "EI0"},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "A2", "props": {"value": {"method": "eq", "ref": "alpha"}}},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "B2", "props": {"value": {"method": "approx:0.001", "ref": 191.6667}}},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "B3", "props": {"value": {"method": "approx:0.1", "ref": -154.06}}},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "A2", "props": {"bgcolor": {"method": "eq", "ref": "FFFF0000"}, "font_color": {"method": "eq", "ref": "FF0000FF"}}},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "A1", "props": {"merge": {"method": "eq", "ref": True}}},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "A1", "props": {"merge": {"method": "eq", "ref": False}}},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "A8", "props": {"value": {"method": "eq", "ref": "İstanbul"}}},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "D2", "props": {"value": {"method": "eq", "ref": True}}},
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "C2", "props": {"font_bold": {"method": "eq", "ref": True}}},
        {"type": "data_validation", "sheet_idx": 0, "dv_props": [{"type": {"method": "eq", "ref": "list"}, "formula1": {"method": "str_set_eq", "ref": ["Pass", "Fail", "Held"]}}]},
    ]
    data_keys = ["base", "round4", "round5", "case", "short", "datetext", "typed", "renamed", "oneSheet", "inline",
                 "errors", "lo_base", "lo_round4", "lo_case", "lo_inline", "lo_errors", "broken"]
    by_type = {
        "freeze": ["base", "freezeB2", "freezeA2", "lo_freezeB2", "lo_base"],
        "zoom": ["base", "zoom150", "zoom50", "lo_zoom150", "lo_base"],
        "row_props": ["base", "hidden", "lo_hidden", "lo_base"],
        "col_props": ["base", "lo_base", "hidden"],
        "style": ["base", "fillRed", "fillBlue", "lo_fillRed", "lo_base"],
        "chart": ["chartBar", "chartBarH", "chartLine", "chartNoTitle", "chartNone", "lo_chartBar"],
        "filter": ["base", "lo_base"],
        "data_validation": ["base", "dvList", "dvWhole", "lo_dvList"],
        "sheet_name": ["base", "renamed", "oneSheet", "lo_base"],
        "pivot_table": ["base", "lo_base"],
    }
    for r in generic:
        ks = by_type.get(r["type"], data_keys)
        if r["type"] == "check_cell":
            ks = ["base", "round4", "fillRed", "fillBlue", "merged", "lo_merged", "lo_fillRed", "inline", "lo_inline",
                  "errors", "lo_base", "typed"]
        pairs = [(a, b) for a in ks for b in ks if b in ("base", ks[0]) or a == b]
        if r["type"] in ("sheet_data", "sheet_fuzzy", "sheet_print"):
            pairs = [(a, "base") for a in ks] + [(a, "lo_base") for a in ks if a.startswith("lo_")] + [("lo_base", "base")]
        for a, b in distinct(pairs):
            if a not in files or b not in files:
                continue
            extra = None
            if r["type"] == "sheet_print":
                extra = {}
                for who, k in (("result", a), ("expected", b)):
                    c = csvs.get(k.replace("lo_", ""), csvs["base"])
                    extra["%s-Sheet1.csv" % who] = store.put(c.encode(), "csv")
            cases.add("compare_table", F(files[a]), F(files[b]), options={"rules": [r]}, extra=extra,
                      note="%s vs %s" % (a, b))
    # the tasks' own rule lists, whole
    for u in uses(tasks, "compare_table"):
        o = u["options"] or {}
        for a, b in [("base", "base"), ("lo_base", "base")]:
            cases.add("compare_table", F(files[a]), F(files[b]), options=o, note="task %s: %s vs %s" % (u["task"][:8], a, b))
    cases.add("compare_table", None, F(files["base"]), options={"rules": [{"type": "sheet_name"}]}, note="no result")
    cases.add("compare_table", F(files["broken"]), F(files["base"]), options={"rules": [{"type": "sheet_name"}]}, note="broken")
    cases.add("compare_table", F(files["base"]), F(files["base"]), options={"rules": [{"type": "nope"}]}, note="unknown rule")


FAMILIES.extend([
    ("csv", fam_csv),
    ("table", fam_table),
])


# ---------------------------------------------------------------- pptx

def _pptx(variant):
    from pptx import Presentation
    from pptx.util import Inches, Pt
    from pptx.dml.color import RGBColor
    from pptx.enum.text import PP_ALIGN
    prs = Presentation()
    layout = prs.slide_layouts[1]
    for i in range(2 if variant != "one_slide" else 1):
        s = prs.slides.add_slide(layout)
        s.shapes.title.text = "Product Comparison" if i == 0 else "Slide %d" % (i + 1)
        body = s.placeholders[1].text_frame
        body.text = "First point"
        p = body.add_paragraph()
        p.text = "Second point"
        p.level = 1 if variant != "level0" else 0
        if variant == "level2":
            p.level = 2
        r = body.paragraphs[0].runs[0]
        if variant == "bold":
            r.font.bold = True
        if variant == "bold_false":
            r.font.bold = False
        if variant == "italic":
            r.font.italic = True
        if variant == "underline":
            r.font.underline = True
        if variant == "font_name":
            r.font.name = "Liberation Serif"
        if variant == "font_size":
            r.font.size = Pt(30)
        if variant == "color":
            r.font.color.rgb = RGBColor(0xFF, 0, 0)
        if variant == "align_center":
            body.paragraphs[0].alignment = PP_ALIGN.CENTER
        if variant == "align_left":
            body.paragraphs[0].alignment = PP_ALIGN.LEFT
        if variant == "text":
            r.text = "First Point"
        if variant == "two_runs":
            body.paragraphs[0].add_run().text = " more"
        if variant == "empty_run":
            body.paragraphs[0].add_run().text = ""
        if variant == "moved" and i == 0:
            s.shapes.title.left = s.shapes.title.left + Inches(0.02)
        if variant == "moved_far" and i == 0:
            s.shapes.title.top = s.shapes.title.top + Inches(1)
        if variant == "resized" and i == 0:
            s.shapes.title.width = int(s.shapes.title.width * 1.008)
        if variant in ("shape", "shape_moved", "shape_text"):
            from pptx.enum.shapes import MSO_SHAPE
            sh = s.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(1), Inches(5), Inches(2), Inches(1))
            if variant == "shape_moved":
                sh.left = Inches(3)
            if variant == "shape_text":
                sh.text_frame.text = "box"
        if variant == "background":
            fill = s.background.fill
            fill.solid()
            fill.fore_color.rgb = RGBColor(0, 0, 0xFF)
        if variant == "notes":
            s.notes_slide.notes_text_frame.text = "speaker note"
        if variant == "table" and i == 1:
            t = s.shapes.add_table(2, 2, Inches(1), Inches(4), Inches(4), Inches(1)).table
            t.cell(0, 0).text = "a"
            t.cell(1, 1).text = "b"
        if variant == "table2" and i == 1:
            t = s.shapes.add_table(2, 2, Inches(1), Inches(4), Inches(4), Inches(1)).table
            t.cell(0, 0).text = "a"
            t.cell(1, 1).text = "B"
        if variant == "strike":
            r.font._rPr.set("strike", "sngStrike")
        if variant == "group":
            g = s.shapes.add_group_shape()
            tb = g.shapes.add_textbox(Inches(1), Inches(6), Inches(2), Inches(1))
            tb.text_frame.text = "grouped"
        if variant == "group2":
            g = s.shapes.add_group_shape()
            tb = g.shapes.add_textbox(Inches(1), Inches(6), Inches(2), Inches(1))
            tb.text_frame.text = "Grouped"
        if variant == "picture":
            from PIL import Image
            b = io.BytesIO()
            Image.new("RGB", (40, 30), (200, 10, 10)).save(b, "PNG")
            b.seek(0)
            s.shapes.add_picture(b, Inches(5), Inches(5), Inches(2), Inches(1.5))
        if variant == "picture_big":
            from PIL import Image
            b = io.BytesIO()
            Image.new("RGB", (40, 30), (200, 10, 10)).save(b, "PNG")
            b.seek(0)
            s.shapes.add_picture(b, Inches(5), Inches(5), Inches(3), Inches(2.25))
    if variant == "portrait":
        prs.slide_width, prs.slide_height = prs.slide_height, prs.slide_width
    b = io.BytesIO()
    prs.save(b)
    return b.getvalue()


PPTX_VARIANTS = ["base", "one_slide", "level0", "level2", "bold", "bold_false", "italic", "underline", "font_name",
                 "font_size", "color", "align_center", "align_left", "text", "two_runs", "empty_run", "moved",
                 "moved_far", "resized", "shape", "shape_moved", "shape_text", "background", "notes", "table", "table2",
                 "strike", "group", "group2", "picture", "picture_big", "portrait"]


def fam_pptx(cases, store, tasks):
    raw = {v: _pptx(v) for v in PPTX_VARIANTS}
    tmp = tempfile.mkdtemp(prefix="oracle-pptx-")
    paths = []
    for k in ["base", "bold", "level0", "align_left", "shape", "background", "table", "group", "picture", "notes", "moved"]:
        p = os.path.join(tmp, "lo_" + k + ".pptx")
        with open(p, "wb") as f:
            f.write(raw[k])
        paths.append(p)
    conv = soffice_convert(paths, "pptx:Impress MS PowerPoint 2007 XML", os.path.join(tmp, "out"))
    for p, data in conv.items():
        raw[os.path.basename(p)[:-5]] = data
    files = {k: store.put(v, "pptx") for k, v in raw.items()}
    optsets = [{}]
    for u in uses(tasks, "compare_pptx_files"):
        optsets.append(u["options"] or {})
    optsets = distinct(optsets)
    keys = list(files)
    for o in optsets:
        for k in keys:
            cases.add("compare_pptx_files", F(files[k]), F(files["base"]), options=o, note="%s vs base" % k)
        for k in keys:
            if k.startswith("lo_"):
                cases.add("compare_pptx_files", F(files[k]), F(files[k[3:]]), options=o, note="%s vs %s" % (k, k[3:]))
    for k in ["bold", "italic", "underline", "align_left", "level0", "two_runs", "moved", "resized", "shape_moved"]:
        for tol in [0.005, 0.01, 0.05]:
            o = {"approximately_tolerance": tol, "examine_shape": True}
            cases.add("compare_pptx_files", F(files["base"]), F(files[k]), options=o, note="base vs %s" % k)
    # other pptx metrics with the tasks' rules
    for k in keys:
        cases.add("check_slide_orientation_Portrait", F(files[k]), None, args="result_only", note=k)
        cases.add("check_image_stretch_and_center", F(files[k]), F(files["base"]), note=k)
    for metric in ["check_transition", "check_page_number_colors", "evaluate_presentation_fill_to_rgb_distance"]:
        for u in uses(tasks, metric):
            rules = rules_of(u)
            for k in keys[:12]:
                cases.add(metric, F(files[k]), rules, note=k)


# ---------------------------------------------------------------- docx

def _docx(variant):
    import docx
    from docx.shared import Pt, RGBColor
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    d = docx.Document()
    paras = ["The quick brown fox.", "", "Jumps over the lazy dog.", "Ünïcödé İstanbul ΣΊΣΥΦΟΣ", "Last line"]
    if variant == "case":
        paras = [p.upper() for p in paras]
    if variant == "order":
        paras = [paras[2], paras[0], paras[1], paras[3], paras[4]]
    if variant == "noblank":
        paras = [p for p in paras if p]
    if variant == "spaces":
        paras = ["The  quick brown   fox. ", "", "Jumps over the lazy dog.", "Ünïcödé İstanbul ΣΊΣΥΦΟΣ", "Last line"]
    if variant == "typo":
        paras = ["The quick brwn fox.", "", "Jumps over the lazy dog.", "Ünïcödé İstanbul ΣΊΣΥΦΟΣ", "Last line"]
    if variant == "extra":
        paras = paras + ["Extra paragraph"]
    if variant == "blank2":
        paras = paras + ["", "   "]
    if variant == "empty":
        paras = []
    for i, t in enumerate(paras):
        p = d.add_paragraph()
        r = p.add_run(t)
        if variant == "bold" and i == 0:
            r.bold = True
        if variant == "italic14" and i == 0:
            r.italic = True
            r.font.size = Pt(14)
        if variant == "center" and i == 0:
            p.alignment = WD_ALIGN_PARAGRAPH.CENTER
        if variant == "font" and i == 0:
            r.font.name = "Times New Roman"
        if variant == "red" and i == 0:
            r.font.color.rgb = RGBColor(0xFF, 0, 0)
        if variant == "spacing" and i == 0:
            p.paragraph_format.line_spacing = 2.0
        if variant == "subscript" and i == 0:
            r2 = p.add_run("2")
            r2.font.subscript = True
        if variant == "strike" and i == len(paras) - 1:
            r.font.strike = True
    if variant in ("table", "table2"):
        t = d.add_table(rows=2, cols=2)
        t.cell(0, 0).text = "a"
        t.cell(1, 1).text = "b" if variant == "table" else "B"
    if variant == "pagebreak":
        from docx.enum.text import WD_BREAK
        d.paragraphs[0].runs[0].add_break(WD_BREAK.PAGE)
    b = io.BytesIO()
    d.save(b)
    return b.getvalue()


DOCX_VARIANTS = ["base", "case", "order", "noblank", "spaces", "typo", "extra", "blank2", "empty", "bold", "italic14",
                 "center", "font", "red", "spacing", "subscript", "strike", "table", "table2", "pagebreak"]


def fam_docx(cases, store, tasks):
    raw = {v: _docx(v) for v in DOCX_VARIANTS}
    tmp = tempfile.mkdtemp(prefix="oracle-docx-")
    paths = []
    for k in DOCX_VARIANTS:
        p = os.path.join(tmp, "lo_" + k + ".docx")
        with open(p, "wb") as f:
            f.write(raw[k])
        paths.append(p)
    conv = soffice_convert(paths[:10], "docx:MS Word 2007 XML", os.path.join(tmp, "out"))
    for p, data in conv.items():
        raw[os.path.basename(p)[:-5]] = data
    odt = soffice_convert(paths, "odt", os.path.join(tmp, "odt"))
    files = {k: F(store.put(v, "docx")) for k, v in raw.items()}
    for p, data in odt.items():
        files["odt_" + os.path.basename(p)[3:-5]] = F(store.put(data, "odt"))
    optsets = [{}, {"ignore_blanks": False}, {"ignore_case": True}, {"ignore_order": True}, {"content_only": True},
               {"fuzzy_match": True}, {"ignore_blanks": False, "fuzzy_match": True}, {"delete_empty_lines": True},
               {"ignore_blanks": False, "delete_empty_lines": True}, {"ignore_blanks": False, "ignore_case": True}]
    for u in uses(tasks, "compare_docx_files"):
        optsets.append(u["options"] or {})
    optsets = distinct(optsets)
    text_keys = [k for k in ["base", "case", "order", "noblank", "spaces", "typo", "extra", "blank2", "empty", "lo_base",
                             "lo_case", "lo_order", "lo_typo", "bold"] if k in files]
    for o in optsets:
        for k in text_keys:
            cases.add("compare_docx_files", files[k], files["base"], options=o, note="%s vs base" % k)
        for k in ["odt_base", "odt_case", "odt_order", "odt_typo", "odt_extra", "odt_blank2", "odt_spaces"]:
            if k in files:
                cases.add("compare_docx_files", files[k], files["odt_base"], options=o, note="%s vs odt_base" % k)
        cases.add("compare_docx_files", files["odt_base"] if "odt_base" in files else files["base"], files["base"],
                  options=o, note="odt vs docx")
    for k in text_keys:
        cases.add("compare_docx_files_and_ignore_new_lines", files[k], files["base"], options={"ignore_blanks": False}, note=k)
        cases.add("compare_docx_lines", files[k], files["base"], note=k)
        cases.add("compare_init_lines", files[k], files["base"], note=k)
    pairs_metrics = ["compare_line_spacing", "compare_subscript_contains", "compare_docx_tables", "check_highlighted_words",
                     "evaluate_strike_through_last_paragraph", "check_italic_font_size_14", "compare_docx_images",
                     "compare_font_names_pair", "compare_insert_equation", "compare_highlighted_text"]
    all_keys = [k for k in files if not k.startswith("odt_")]
    for m in pairs_metrics:
        if m == "compare_font_names_pair":
            continue
        for k in all_keys:
            cases.add(m, files[k], files["base"], note=k)
    for k in all_keys:
        cases.add("has_page_numbers_in_footers", files[k], None, args="result_only", note=k)
        cases.add("is_first_line_centered", files[k], None, args="result_only", note=k)
        cases.add("evaluate_colored_words_in_tables", files[k], files["base"], note=k)
    for m in ["compare_font_names", "contains_page_break", "fuzzy_place_math"]:
        for u in uses(tasks, m):
            rules = rules_of(u)
            for k in all_keys:
                cases.add(m, files[k], rules, note=k)
    for u in uses(tasks, "check_tabstops"):
        for k in all_keys[:8]:
            cases.add("check_tabstops", files[k], files["base"], options=u["options"] or {}, note=k)


FAMILIES.extend([
    ("pptx", fam_pptx),
    ("docx", fam_docx),
])


# ---------------------------------------------------------------- images

def _img_bytes(im, fmt="PNG", **kw):
    b = io.BytesIO()
    im.save(b, fmt, **kw)
    return b.getvalue()


def _scene(w=96, h=64, seed=1, shift=0, bright=1.0, sat=1.0, contrast=1.0, mirror=False, bg=None):
    from PIL import Image, ImageDraw, ImageEnhance, ImageOps
    rnd = random.Random(seed)
    im = Image.new("RGB", (w, h), bg or (230, 230, 240))
    d = ImageDraw.Draw(im)
    for i in range(12):
        x, y = rnd.randrange(w) + shift, rnd.randrange(h)
        r = rnd.randrange(4, 18)
        d.ellipse([x - r, y - r, x + r, y + r], fill=(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)))
    d.polygon([(w // 2, 5), (w // 2 - 12, 25), (w // 2 + 12, 25)], fill=(20, 20, 20))
    if bright != 1.0:
        im = ImageEnhance.Brightness(im).enhance(bright)
    if sat != 1.0:
        im = ImageEnhance.Color(im).enhance(sat)
    if contrast != 1.0:
        im = ImageEnhance.Contrast(im).enhance(contrast)
    if mirror:
        im = ImageOps.mirror(im)
    return im


def fam_images(cases, store, tasks):
    from PIL import Image
    base = _scene()
    imgs = {
        "base": _img_bytes(base),
        "same_jpg": _img_bytes(base, "JPEG", quality=90),
        "shift": _img_bytes(_scene(shift=3)),
        "other": _img_bytes(_scene(seed=7)),
        "darker": _img_bytes(_scene(bright=0.7)),
        "brighter": _img_bytes(_scene(bright=1.3)),
        "saturated": _img_bytes(_scene(sat=1.8)),
        "contrast": _img_bytes(_scene(contrast=1.6)),
        "mirror": _img_bytes(_scene(mirror=True)),
        "small": _img_bytes(base.resize((48, 32))),
        "tall": _img_bytes(base.resize((96, 128))),
        "rgba": _img_bytes(base.convert("RGBA")),
        "rgba_transparent": None,
        "palette": _img_bytes(base.convert("P", palette=Image.ADAPTIVE, colors=16)),
        "gray": _img_bytes(base.convert("L")),
        "green_bg": _img_bytes(_scene(bg=(0, 255, 0))),
        "white": _img_bytes(Image.new("RGB", (96, 64), (255, 255, 255))),
        "la": _img_bytes(base.convert("LA")),
        "i16": _img_bytes(base.convert("I")),
    }
    t = base.convert("RGBA")
    px = t.load()
    for x in range(0, 30):
        for y in range(64):
            px[x, y] = (0, 0, 0, 0)
    imgs["rgba_transparent"] = _img_bytes(t)
    files = {k: F(store.put(v, "jpg" if k.endswith("jpg") else "png")) for k, v in imgs.items()}
    files["broken"] = F(store.put(b"\x89PNG\r\n\x1a\n broken", "png"))
    keys = list(files)
    optsets = [{}] + distinct([u["options"] or {} for u in uses(tasks, "compare_images")]) + [{"reference_base_result": 0.9}]
    for o in optsets:
        for k in keys:
            cases.add("compare_images", files[k], files["base"], options=o, note="%s vs base" % k)
            cases.add("compare_images", files["base"], files[k], options=o, note="base vs %s" % k)
    pair_metrics = ["check_brightness_decrease_and_structure_sim", "check_saturation_increase_and_structure_sim",
                    "check_file_exists_and_structure_sim", "check_structure_sim", "check_structure_sim_resized",
                    "check_palette_and_structure_sim", "check_contrast_increase_and_structure_sim", "check_image_mirror",
                    "check_green_background", "compare_image_list", "check_structure_sim_with_threshold"]
    for m in pair_metrics:
        opts_list = distinct([u["options"] or {} for u in uses(tasks, m)]) or [{}]
        for o in opts_list:
            for k in keys:
                cases.add(m, files[k], files["base"], options=o, note="%s vs base" % k)
    for u in uses(tasks, "check_image_size"):
        for k in keys:
            cases.add("check_image_size", files[k], rules_of(u), note=k)
    for rule in [{"width": 96, "height": 64}, {"width": 48}, {"height": 64, "ignore_transparent": True}]:
        for k in keys:
            cases.add("check_image_size", files[k], rule, note=k)
    for u in uses(tasks, "check_image_file_size"):
        for k in keys:
            cases.add("check_image_file_size", files[k], rules_of(u), note=k)
    for m in ["check_triangle_position", "check_textbox_on_leftside"]:
        for k in keys:
            cases.add(m, files[k], None, args="result_only", note=k)


# ---------------------------------------------------------------- pdf

def _pdf(lines, pages=1):
    import fitz
    doc = fitz.open()
    for p in range(pages):
        page = doc.new_page(width=300, height=200)
        y = 30
        for l in lines:
            page.insert_text((20, y), l, fontsize=11)
            y += 16
    return doc.tobytes()


def fam_pdf(cases, store, tasks):
    L = ["Hello PDF world", "Second line 2 = 4", "x = 42"]
    pdfs = {
        "base": _pdf(L), "same2": _pdf(L), "typo": _pdf(["Helo PDF world", L[1], L[2]]),
        "order": _pdf([L[2], L[1], L[0]]), "upper": _pdf([l.upper() for l in L]), "twopages": _pdf(L, 2),
        "empty": _pdf([]), "other": _pdf(["Completely different text here"]), "threepages": _pdf(L, 3),
    }
    files = {k: F(store.put(v, "pdf")) for k, v in pdfs.items()}
    files["broken"] = F(store.put(b"%PDF-1.4 broken", "pdf"))
    keys = list(files)
    for a in keys:
        for b in ["base", "twopages", "order"]:
            cases.add("compare_pdfs", files[a], files[b], note="%s vs %s" % (a, b))
            cases.add("compare_pdf_images", files[a], files[b], note="%s vs %s" % (a, b))
    for lst in [["base", "typo"], ["order", "other"], ["base"]]:
        cases.add("compare_pdfs", [files[x] for x in lst], [files["base"] for _ in lst], note="lists %s" % lst)
    for u in uses(tasks, "check_pdf_pages"):
        for k in keys:
            cases.add("check_pdf_pages", files[k], rules_of(u), note=k)
    for rel in ["eq", "lt", "ge"]:
        for k in keys:
            cases.add("check_pdf_pages", files[k], {"relation": rel, "ref_value": 2}, note=k)


FAMILIES.extend([
    ("images", fam_images),
    ("pdf", fam_pdf),
])


# ---------------------------------------------------------------- sqlite, archives, a11y, media

def _sqlite(schema, rows):
    """A database written by Python's sqlite3: SCHEMA (statements) then
    ROWS ([(sql, params)]); returns its bytes."""
    import sqlite3
    fd, p = tempfile.mkstemp(suffix=".db")
    os.close(fd)
    os.remove(p)
    con = sqlite3.connect(p)
    con.executescript(schema)
    for sql, params in rows:
        con.execute(sql, params)
    con.commit()
    con.close()
    with open(p, "rb") as f:
        data = f.read()
    os.remove(p)
    return data


def _query(data, sql):
    """The rows of SQL on a database, BLOBs as lowercase hex (deskrun's
    cookie_data and history getters answer them so; OSWorld's metrics read
    only the text columns)."""
    import sqlite3
    fd, p = tempfile.mkstemp(suffix=".db")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    con = sqlite3.connect(p)
    rows = con.execute(sql).fetchall()
    con.close()
    os.remove(p)
    return [[c.hex() if isinstance(c, bytes) else c for c in r] for r in rows]


CHROME_COOKIES = """CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR);
CREATE TABLE cookies(creation_utc INTEGER NOT NULL, host_key TEXT NOT NULL, top_frame_site_key TEXT NOT NULL,
 name TEXT NOT NULL, value TEXT NOT NULL, encrypted_value BLOB NOT NULL, path TEXT NOT NULL,
 expires_utc INTEGER NOT NULL, is_secure INTEGER NOT NULL, is_httponly INTEGER NOT NULL,
 last_access_utc INTEGER NOT NULL, has_expires INTEGER NOT NULL, is_persistent INTEGER NOT NULL,
 priority INTEGER NOT NULL, samesite INTEGER NOT NULL, source_scheme INTEGER NOT NULL,
 source_port INTEGER NOT NULL, last_update_utc INTEGER NOT NULL,
 UNIQUE (host_key, top_frame_site_key, name, path, source_scheme, source_port));"""

CHROME_HISTORY = """CREATE TABLE urls(id INTEGER PRIMARY KEY AUTOINCREMENT, url LONGVARCHAR, title LONGVARCHAR,
 visit_count INTEGER DEFAULT 0 NOT NULL, typed_count INTEGER DEFAULT 0 NOT NULL,
 last_visit_time INTEGER NOT NULL, hidden INTEGER DEFAULT 0 NOT NULL);
CREATE TABLE visits(id INTEGER PRIMARY KEY, url INTEGER NOT NULL, visit_time INTEGER NOT NULL);"""

THUNDERBIRD_GLODA = """CREATE TABLE folderLocations (id INTEGER PRIMARY KEY, folderURI TEXT NOT NULL, dirtyStatus INTEGER NOT NULL, name TEXT NOT NULL, indexingPriority INTEGER NOT NULL);
CREATE TABLE messages (id INTEGER PRIMARY KEY, folderID INTEGER, messageKey INTEGER, conversationID INTEGER NOT NULL, date INTEGER, headerMessageID TEXT, deleted INTEGER NOT NULL default 0, jsonAttributes TEXT, notability INTEGER NOT NULL default 0);
CREATE TABLE messageAttributes (conversationID INTEGER NOT NULL, messageID INTEGER NOT NULL, attributeID INTEGER NOT NULL, value NUMERIC);"""


def fam_chrome_db(cases, store, tasks):
    hosts = [".amazon.com", "www.amazon.com", "amazon.com", ".www.amazon.com", "smile.amazon.com", ".amazon.co.uk",
             "amazon.com.evil.org", "notamazon.com", ".google.com", "AMAZON.COM", "", "accounts.google.com",
             "amazon.com.sg", "AMAZON.co.JP", "amazon.com:443", "github.io", "docs.github.io", "localhost", "192.168.0.1",
             "amazon.invalidtld", "www.www.amazon.com", "amazon.com."]
    t0 = 13350000000000000

    def cookie(i, host):
        return ("INSERT INTO cookies VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (t0 + i, host, "", "session-id", "", bytes([118, 49, 48, i % 256]) + b"\x00\xff", "/", t0 + 10 ** 12,
                 1, 0, t0 + i, 1, 1, 1, 0, 2, 443, t0 + i))
    dbs = [("empty", [])] + [(h or "blank", [cookie(0, h)]) for h in hosts] + [
        ("google only", [cookie(0, ".google.com"), cookie(1, "accounts.google.com")]),
        ("mixed", [cookie(0, ".google.com"), cookie(1, ".amazon.com"), cookie(2, "github.com")])]
    rules = distinct(rules_of(u) for u in uses(tasks, "is_cookie_deleted"))
    rules += [{"type": "domains", "domains": ["amazon.com"]}, {"type": "domains", "domains": ["https://www.amazon.com/"]},
              {"type": "domains", "domains": [".amazon.com", ".google.com"]}, {"type": "domains", "domains": []},
              {"type": "domains", "domains": ["https://www.amazon.com.sg/"]}, {"type": "domains", "domains": ["github.io"]},
              {"type": "domains", "domains": ["http://user@localhost:8080"]}, {"type": "domains", "domains": ["192.168.0.1"]}]
    for note, rows in dbs:
        data = _sqlite(CHROME_COOKIES, [("INSERT INTO meta VALUES ('version', '21')", ())] + rows)
        got = _query(data, "SELECT * FROM cookies")
        for r in rules:
            cases.add("is_cookie_deleted", got, r, note="cookies " + note)
    cases.add("is_cookie_deleted", None, rules[0], note="no database")
    cases.add("is_cookie_deleted", [], {"type": "names", "names": ["x"]}, note="unknown rule type")

    urls = ["https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://m.youtube.com/", "https://YOUTUBE.com/",
            "https://youtu.be/abc", "https://www.google.com/search?q=youtube", "https://example.com/",
            "chrome://settings/", "https://www.youtube-nocookie.com/embed/x", "about:blank"]

    def visit(i, url, title):
        return ("INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) VALUES (?,?,?,?,?,?)",
                (url, title, 1, 0, t0 + i, 0))
    hdbs = [("empty", [])] + [(u, [visit(0, u, "t")]) for u in urls] + [
        ("title only", [visit(0, "https://example.com/v", "YouTube video")]),
        ("many", [visit(i, u, "t%d" % i) for i, u in enumerate(urls[4:])])]
    hrules = distinct(rules_of(u) for u in uses(tasks, "check_history_deleted"))
    hrules += [{"type": "keywords", "keywords": ["youtube", "google"]}, {"type": "keywords", "keywords": ["YouTube"]},
               {"type": "keywords", "keywords": []}]
    for note, rows in hdbs:
        data = _sqlite(CHROME_HISTORY, rows)
        got = _query(data, "SELECT url, title, last_visit_time FROM urls")
        for r in hrules:
            cases.add("check_history_deleted", got, r, note="history " + note)
    cases.add("check_history_deleted", None, hrules[0], note="no database")
    cases.add("check_history_deleted", [], {"type": "domains", "domains": ["x"]}, note="unknown rule type")


def fam_sqlite3(cases, store, tasks):
    # run_sqlite3 on Thunderbird's global-messages-db (gloda) as the task queries it
    def db(msgs, attrs):
        rows = [("INSERT INTO folderLocations VALUES (?,?,?,?,?)", (13, "mailbox://nobody@Local%20Folders/Important", 0, "Important", 0))]
        rows += [("INSERT INTO messages (id, folderID, messageKey, conversationID, date, headerMessageID) VALUES (?,?,?,?,?,?)",
                  (i, f, i, i, 1700000000000000 + i, "<m%d@x>" % i)) for i, f in msgs]
        rows += [("INSERT INTO messageAttributes VALUES (?,?,?,?)", (m, m, a, v)) for m, a, v in attrs]
        return F(store.put(_sqlite(THUNDERBIRD_GLODA, rows), "sqlite"))
    dbs = {
        "all starred": db([(1, 13), (2, 13), (3, 7)], [(1, 58, 1), (2, 58, 1)]),
        "one unstarred": db([(1, 13), (2, 13)], [(1, 58, 1), (2, 58, 0)]),
        "none starred": db([(1, 13), (2, 13)], []),
        "empty folder": db([(3, 7)], [(3, 58, 1)]),
        "other attribute": db([(1, 13)], [(1, 57, 1)]),
        "starred elsewhere": db([(1, 13), (2, 7)], [(2, 58, 1)]),
    }
    sqls = [r["sql"] for r in distinct(rules_of(u) for u in uses(tasks, "run_sqlite3"))]
    sqls += ["SELECT COUNT(*) FROM messages", "SELECT COUNT(*) FROM messages WHERE folderID = 99",
             "SELECT NULL", "SELECT 0.25", "SELECT '0.5'", "SELECT name FROM folderLocations",
             "SELECT id FROM messages WHERE 0", "SELECT * FROM nosuchtable", "SELECT COUNT(*) FROM messages WHERE folderID = 13 AND id < 2"]
    for note, f in dbs.items():
        for s in sqls:
            cases.add("run_sqlite3", f, {"sql": s}, note="gloda " + note)
    cases.add("run_sqlite3", F(store.put(b"not a database at all, just text" * 4, "sqlite")), {"sql": sqls[0]}, note="not a database")


ZIP_TIME = (2024, 3, 5, 10, 0, 0)


def _zip(entries):
    """A zip written by Python's zipfile: ENTRIES [(name, bytes)] (a name
    ending in / is a folder), deflated, with a fixed time."""
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, ZIP_TIME)
            if name.endswith("/"):
                zi.external_attr = (0o40755 << 16) | 0x10
                z.writestr(zi, b"")
            else:
                zi.compress_type = zipfile.ZIP_DEFLATED
                zi.external_attr = 0o644 << 16
                z.writestr(zi, data)
    return buf.getvalue()


def _targz(entries):
    """A .tar.gz written by Python's tarfile and gzip, fixed times."""
    import gzip
    import tarfile
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in entries:
            ti = tarfile.TarInfo(name.rstrip("/"))
            ti.mtime = 1709632800
            if name.endswith("/"):
                ti.type = tarfile.DIRTYPE
                ti.mode = 0o755
                t.addfile(ti)
            else:
                ti.size = len(data)
                ti.mode = 0o644
                t.addfile(ti, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as g:
        g.write(raw.getvalue())
    return out.getvalue()


def fam_archives(cases, store, tasks):
    P = {"ch1": ["Chapter one", "The first lecture on sets"], "ch2": ["Chapter two", "Relations and functions"],
         "ch3": ["Chapter three", "Graphs and trees"], "ch2b": ["Chapter two", "Relations and maps"],
         "other": ["Completely unrelated", "text in this file"]}
    pdf = {k: _pdf(v) for k, v in P.items()}
    gold = [("ch1.pdf", pdf["ch1"]), ("ch2.pdf", pdf["ch2"]), ("ch3.pdf", pdf["ch3"])]
    sub = [("lecture_slides/", b"")] + [("lecture_slides/" + n, d) for n, d in gold]
    variants = {
        "same": gold, "resaved": [(n, _pdf(P[n[:-4]])) for n, _ in gold], "one changed": [gold[0], ("ch2.pdf", pdf["ch2b"]), gold[2]],
        "one other": [gold[0], ("ch2.pdf", pdf["other"]), gold[2]], "missing one": gold[:2],
        "renamed": [("Ch1.pdf", pdf["ch1"])] + gold[1:], "swapped": [("ch1.pdf", pdf["ch2"]), ("ch2.pdf", pdf["ch1"]), gold[2]],
        "extra folder": gold + [("notes/", b"")], "empty": [], "in folder": sub,
    }
    opts = distinct((u["options"] or {}) for u in uses(tasks, "compare_archive"))
    for gname, gent in [("zip", gold), ("folder zip", sub)]:
        exp = F(store.put(_zip(gent), "zip"), "expected.zip")
        for vname, ent in variants.items():
            for fmt, build, as_ in [("zip", _zip, "result.zip"), ("tar.gz", _targz, "result.tar.gz")]:
                if fmt == "tar.gz" and vname not in ("same", "one changed", "in folder", "empty"):
                    continue
                res = F(store.put(build(ent), fmt), as_)
                for o in opts:
                    cases.add("compare_archive", res, exp, options=o, note="%s %s vs %s" % (vname, fmt, gname))
    # text files (the default file type)
    T = [("a.txt", b"alpha\nbeta\n"), ("b.txt", b"gamma\n")]
    texp = F(store.put(_targz(T), "tar.gz"), "expected.tar.gz")
    for vname, ent in {"same": T, "case": [("a.txt", b"ALPHA\nbeta\n"), T[1]], "blank lines": [("a.txt", b"alpha\n\nbeta\n"), T[1]],
                       "different": [("a.txt", b"delta\n"), T[1]]}.items():
        res = F(store.put(_targz(ent), "tar.gz"), "result.tar.gz")
        for o in [{}, {"ignore_blanks": True}, {"ignore_case": True}]:
            cases.add("compare_archive", res, texp, options=o, note="text " + vname)
    cases.add("compare_archive", None, texp, note="no result")
    cases.add("compare_archive", F(store.put(b"PK\x03\x04 broken", "zip"), "result.zip"), texp, note="broken zip")
    cases.add("compare_archive", F(store.put(_targz(T), "tar.gz"), "result.tar.gz"), texp, options={"file_type": "nope"}, note="unknown type")

    # compare_zip_files
    D = [("essay.docx", b"PK fake docx bytes 1"), ("notes.txt", b"hello\n"), ("paper.pdf", pdf["ch1"])]
    zexp = F(store.put(_zip(D), "zip"))
    for vname, ent in {"same": D, "pdf resaved": [D[0], D[1], ("paper.pdf", _pdf(P["ch1"]))],
                       "pdf similar": [D[0], D[1], ("paper.pdf", pdf["ch2b"])], "pdf other": [D[0], D[1], ("paper.pdf", pdf["other"])],
                       "text differs": [D[0], ("notes.txt", b"hello \n"), D[2]], "missing": D[:2],
                       "extra": D + [("x.txt", b"")], "in folder": [("essay/" + n, d) for n, d in D], "reordered": D[::-1],
                       "empty": []}.items():
        cases.add("compare_zip_files", F(store.put(_zip(ent), "zip")), zexp, note=vname)
    cases.add("compare_zip_files", None, zexp, note="no result")
    cases.add("compare_zip_files", F(store.put(b"PK\x03\x04 broken", "zip")), zexp, note="broken zip")
    cases.add("compare_zip_files", F(store.put(b"", "zip")), zexp, note="empty file")


# Namespaces of the accessibility tree OSWorld's server writes on Ubuntu.
A11Y_NS = {
    "st": "https://accessibility.ubuntu.example.org/ns/state",
    "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
    "cp": "https://accessibility.ubuntu.example.org/ns/component",
    "doc": "https://accessibility.ubuntu.example.org/ns/document",
    "docattr": "https://accessibility.ubuntu.example.org/ns/document/attributes",
    "txt": "https://accessibility.ubuntu.example.org/ns/text",
    "val": "https://accessibility.ubuntu.example.org/ns/value",
    "act": "https://accessibility.ubuntu.example.org/ns/action",
}


def _ax(role, name="", attrs=None, text=None, kids=(), states=("enabled", "sensitive", "showing", "visible")):
    """One node as the server's _create_atspi_node builds it."""
    import lxml.etree
    a = {"name": name}
    for s in states:
        a["{%s}%s" % (A11Y_NS["st"], s)] = "true"
    for k, v in (attrs or {}).items():
        a["{%s}%s" % (A11Y_NS["attr"], k)] = v
    if "visible" in states and "showing" in states:
        a["{%s}screencoord" % A11Y_NS["cp"]] = "(10, 20)"
        a["{%s}size" % A11Y_NS["cp"]] = "(100, 24)"
    e = lxml.etree.Element(role, attrib=a, nsmap=A11Y_NS)
    if text:
        e.text = text
    for k in kids:
        e.append(k)
    return e


def _axtree(*apps):
    import lxml.etree
    root = lxml.etree.Element("desktop-frame", nsmap=A11Y_NS)
    for a in apps:
        root.append(a)
    return lxml.etree.tostring(root, encoding="unicode")


def fam_a11y(cases, store, tasks):
    def pill(addr, cls="address-pill", lcls="pill-label"):
        return _ax("section", attrs={"class": cls}, kids=[_ax("label", addr, attrs={"class": lcls}, text=addr)])

    def header(addrs, toolbar="MsgHeadersToolbar", to="To", before=False, **kw):
        kids = [_ax("label", to)] + [pill(a, **kw) for a in addrs]
        if before:
            kids = kids[1:] + kids[:1]
        return _ax("tool-bar", attrs={"id": toolbar}, kids=[_ax("label", "From"), pill("me@someuniversity.edu")] + kids)

    def tb(*kids, name="Thunderbird", tabs=("Inbox",)):
        tablist = _ax("page-tab-list", attrs={"id": "tabmail-tabs"}, kids=[_ax("page-tab", t) for t in tabs])
        return _ax("application", name, kids=[_ax("frame", "Inbox - Mozilla Thunderbird", kids=[tablist] + list(kids))])
    four = ["Fox <fox@someuniversity.edu>", "iron@someuniversity.edu", "Nancy <nancy@someuniversity.edu>", "stella@someuniversity.edu"]
    trees = {
        "all four": _axtree(tb(header(four))),
        "three": _axtree(tb(header(four[:3]))),
        "other toolbar": _axtree(tb(header(four, toolbar="MsgHeadersToolbar2"))),
        "pills before To": _axtree(tb(header(four, before=True))),
        "pill class differs": _axtree(tb(header(four, cls="address-pill selected"))),
        "label Cc": _axtree(tb(header(four, to="Cc"))),
        "upper case": _axtree(tb(header([a.upper() for a in four]))),
        "profiles tab": _axtree(tb(tabs=("Inbox", "About Profiles"))),
        "profiles tab other app": _axtree(tb(tabs=("Inbox", "About Profiles"), name="Firefox")),
        "account": _axtree(tb(_ax("text", "Email address", text="anonym-x2024@outlook.com"), _ax("label", "Password"))),
        "account by name": _axtree(tb(_ax("label", "anonym-x2024@outlook.com"), _ax("password-text", "password"))),
        "account no password": _axtree(tb(_ax("label", "anonym-x2024@outlook.com"))),
        "account other app": _axtree(tb(_ax("label", "anonym-x2024@outlook.com"), _ax("label", "Password"), name="Evolution")),
        "empty desktop": _axtree(),
    }
    rules = distinct(rules_of(u) for u in uses(tasks, "check_accessibility_tree"))
    rules += [[{"xpath": "//label[@name='From']", "text": "x", "exact": True}],
              [{"xpath": "//text[@name='Email address']", "text": "anonym-x2024@outlook.com", "exact": True}],
              [{"xpath": "//text[@name='Email address']", "text": "anonym-x2024@outlook.org", "exact": False}],
              [{"xpath": "//label", "text": "Fox <fox@someuniversity.edu>", "exact": False}],
              [{"selectors": ["page-tab[name=Inbox]", "page-tab[name=\"About Profiles\"]"]}],
              [{"selectors": ["[st|showing=true][name=Password]"]}],
              [{"xpath": "//*[@attr:id='tabmail-tabs']/page-tab[2]"}],
              [{"text": "x"}]]
    for note, t in trees.items():
        t = T(store.put(t.encode(), "xml"))
        for r in rules:
            cases.add("check_accessibility_tree", t, r, note=note)
    cases.add("check_accessibility_tree", "<desktop-frame><broken", rules[0], note="broken xml")
    cases.add("check_accessibility_tree", None, rules[0], note="no tree")

    # check_left_panel: Impress's slide pane is a document-frame named Slides View
    def impress(*kids):
        return _ax("application", "soffice", kids=[_ax("frame", "Untitled 1 - LibreOffice Impress", kids=list(kids))])
    panels = {
        "slides view": _axtree(impress(_ax("panel", "", kids=[_ax("document-frame", "Slides View")]),
                                       _ax("document-presentation", "Untitled 1 - Impress"))),
        "slides view deep": _axtree(impress(_ax("panel", kids=[_ax("panel", kids=[_ax("scroll-pane", kids=[_ax("document-frame", "Slides View")])])]))),
        "no pane": _axtree(impress(_ax("document-presentation", "Untitled 1 - Impress"))),
        "other frame": _axtree(impress(_ax("document-frame", "Outline View"))),
        "case": _axtree(impress(_ax("document-frame", "slides view"))),
        "role differs": _axtree(impress(_ax("panel", "Slides View"))),
        "hidden": _axtree(impress(_ax("document-frame", "Slides View", states=()))),
        "empty": _axtree(),
    }
    for note, t in panels.items():
        cases.add("check_left_panel", T(store.put(t.encode(), "xml")), None, args="result_only", note=note)
    cases.add("check_left_panel", "<desktop-frame", None, args="result_only", note="broken xml")


def _mbox_msg(subj, frm="billing@example.com", status="0001", keys="", day=5, body="Your bill is ready."):
    return ("From - Tue Mar %02d 10:00:00 2024\n" % day
            + "X-Mozilla-Status: %s\nX-Mozilla-Status2: 00000000\nX-Mozilla-Keys: %s%s\n" % (status, keys, " " * (80 - len(keys)))
            + "Return-Path: <%s>\nMIME-Version: 1.0\nFrom: Billing <%s>\nTo: user@example.com\n" % (frm, frm)
            + "Subject: %s\nDate: Tue, %d Mar 2024 10:00:00 +0000\nContent-Type: text/plain; charset=UTF-8\n\n%s\n\n" % (subj, day, body))


def fam_thunderbird_folder(cases, store, tasks):
    a, b, c = _mbox_msg("Invoice 1"), _mbox_msg("Invoice 2", day=6), _mbox_msg("Receipt", frm="x@shop.example", day=7)
    folders = {
        "gold": a + b, "same": a + b, "reordered": b + a, "other": a + c, "one": a, "duplicate": a + b + a,
        "deleted": a + b + _mbox_msg("Old", status="0009"), "empty": "", "blank lines": "\n\n",
        "FROM prefix": "FROM - one\nFROM - two\n", "FROM empty piece": "FROM - FROM - x\n", "FROM only": "FROM - ",
        "status 0008": _mbox_msg("Gone", status="0008"),
    }
    files = {k: F(store.put(v.encode(), "mbox")) for k, v in folders.items()}
    files["latin1"] = F(store.put(("From - x\nSubject: caf\u00e9\n").encode("latin-1"), "mbox"))
    optsets = distinct(u["options"] for u in uses(tasks, "check_thunderbird_folder"))
    optsets += [{"remove_deleted": False, "remove_duplicate": False}, {"ignore_status": True, "ignore_keys": True}]
    for gold in ["gold", "empty", "FROM prefix"]:
        for k, f in files.items():
            for o in optsets:
                cases.add("check_thunderbird_folder", f, files[gold], options=o, note="%s vs %s" % (k, gold))
    for pair in [("gold", "other"), ("empty", "gold"), ("same", "empty"), ("FROM only", "empty")]:
        for o in optsets:
            cases.add("check_thunderbird_folder", [files[pair[0]], files["one"]], [files[pair[1]], files["one"]], options=o,
                      note="lists %s/%s" % pair)
    cases.add("check_thunderbird_folder", [files["gold"], None], [files["gold"], files["gold"]], note="list with a missing file")
    cases.add("check_thunderbird_folder", None, files["gold"], note="no result")
    # .eml files, as the Google Drive task fetches them
    eml = ("MIME-Version: 1.0\nDate: Tue, 5 Mar 2024 10:00:00 +0000\nFrom: AWS <no-reply@aws.example>\n"
           "To: user@example.com\nSubject: Invoice Available\nContent-Type: text/plain\n\nInvoice ID 0123456789\n")
    e1, e2 = F(store.put(eml.encode(), "eml")), F(store.put(eml.replace("0123456789", "9").encode(), "eml"))
    for r, g, note in [([e1, e2], [e1, e2], "eml same"), ([e2, e1], [e1, e2], "eml swapped"), ([e1, None], [e1, e2], "eml missing")]:
        cases.add("check_thunderbird_folder", r, g, note=note)


def _refdocx(paras):
    import docx
    d = docx.Document()
    for p in paras:
        d.add_paragraph(p)
    b = io.BytesIO()
    d.save(b)
    return b.getvalue()


def fam_references(cases, store, tasks):
    body = ["Case study", "Health workforce retention in Europe.", "It draws on several sources."]
    refs = ["Smith, J. (2020). Retention of nurses. Journal of Health, 12(3), 45-67.",
            "Doe, A., & Roe, B. (2019). Migration of doctors. Health Policy, 8, 1-20.",
            "World Health Organization. (2022). Health workforce report. Geneva: WHO."]
    docs = {
        "gold": body + ["References"] + refs,
        "same": body + ["References"] + refs,
        "blank between": body + ["References", ""] + [x for r in refs for x in (r, " ")],
        "typo": body + ["References"] + [refs[0].replace("nurses", "nurse"), refs[1], refs[2]],
        "apa vs mla": body + ["References"] + ["Smith, John. \"Retention of Nurses.\" Journal of Health, vol. 12, no. 3, 2020, pp. 45-67.", refs[1], refs[2]],
        "reordered": body + ["References"] + refs[::-1],
        "missing one": body + ["References"] + refs[:2],
        "no heading": body + refs,
        "heading spaced": body + ["References "] + refs,
        "two headings": body + ["References", "Old list", "References"] + refs,
        "unrelated": body + ["References"] + ["Lorem ipsum dolor sit amet.", "Consectetur adipiscing.", "Sed do eiusmod."],
    }
    files = {k: F(store.put(_refdocx(v), "docx")) for k, v in docs.items()}
    nohead = F(store.put(_refdocx(body), "docx"))
    optsets = distinct((u["options"] or {}) for u in uses(tasks, "compare_references")) + [{}, {"reference_base_result": 0.9},
                                                                                        {"reference_indicator": "Bibliography"}]
    for k, f in files.items():
        for o in optsets:
            cases.add("compare_references", f, files["gold"], options=o, note="%s vs gold" % k)
    for o in optsets[:2]:
        cases.add("compare_references", nohead, files["no heading"], options=o, note="neither has the heading")
        cases.add("compare_references", files["gold"], F(store.put(b"plain text", "txt")), options=o, note="not docx")
        cases.add("compare_references", None, files["gold"], options=o, note="no result")
        cases.add("compare_references", F(store.put(b"PK\x03\x04 broken", "docx")), files["gold"], options=o, note="broken docx")


def fam_test_suite(cases, store, tasks):
    settings_ok = "WIDTH = 800\nHEIGHT = 600\nFPS = 10\n"
    settings_bad = "WIDTH = 640\nHEIGHT = 480\nFPS = 10\n"
    main = "import settings\n\ndef speed():\n    return settings.FPS * 2\n"
    suites = {
        "checks settings": "import settings\nimport main\n\ndef test():\n    return settings.WIDTH == 800 and main.speed() == 20\n",
        "returns half": "def test():\n    return 0.5\n",
        "returns two": "def test():\n    return 2\n",
        "returns negative": "def test():\n    return -1.5\n",
        "returns None": "def test():\n    pass\n",
        "returns text": "def test():\n    return 'ok'\n",
        "returns empty list": "def test():\n    return []\n",
        "raises": "def test():\n    raise AssertionError('no')\n",
        "asserts": "import settings\n\ndef test():\n    assert settings.HEIGHT == 600\n    return True\n",
        "syntax error": "def test(:\n    return True\n",
        "no test function": "def check():\n    return True\n",
        "not callable": "test = True\n",
        "imports missing": "import food\n\ndef test():\n    return True\n",
        "exits at import": "import sys\nsys.exit(0)\n\ndef test():\n    return True\n",
        "exits in test": "import sys\n\ndef test():\n    sys.exit(0)\n",
        "prints": "def test():\n    print('result: 0')\n    return True\n",
        "reads cwd": "import os\n\ndef test():\n    return os.path.exists('settings.py')\n",
    }
    for sname, sset in [("good settings", settings_ok), ("bad settings", settings_bad)]:
        res = [F(store.put(main.encode(), "py"), "main.py"), F(store.put(sset.encode(), "py"), "settings.py")]
        for k, s in suites.items():
            if sname == "bad settings" and k not in ("checks settings", "asserts", "reads cwd"):
                continue
            cases.add("check_python_file_by_test_suite", res, F(store.put(s.encode(), "py"), "test_suite.py"),
                      note="%s, %s" % (k, sname))
    res = [F(store.put(main.encode(), "py"), "main.py"), F(store.put(settings_ok.encode(), "py"), "settings.py")]
    named = F(store.put(b"def check():\n    return True\n\ndef test():\n    return False\n", "py"), "test_suite.py")
    cases.add("check_python_file_by_test_suite", res, named, options={"test_function_name": "check"}, note="test_function_name")
    cases.add("check_python_file_by_test_suite", res, named, note="default name")
    cases.add("check_python_file_by_test_suite", res, None, note="no test suite")
    only = F(store.put(b"def test():\n    return True\n", "py"), "test_suite.py")
    cases.add("check_python_file_by_test_suite", [res[0], None], only, note="a result file missing")
    cases.add("check_python_file_by_test_suite", None, only, note="no result files")


def fam_conference(cases, store, tasks):
    import openpyxl
    rules = distinct(rules_of(u) for u in uses(tasks, "compare_conference_city_in_order"))
    exp = rules[0]["expected"]
    first = [e if isinstance(e, str) else e[0] for e in exp]
    alt = [e if isinstance(e, str) else e[-1] for e in exp]

    def book(cities, active=0, start=2, col=3):
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.title = "Sheet1"
        ws.append(["Year", "Conference", "City"])
        for i, c in enumerate(cities):
            ws.cell(row=start + i, column=col, value=c)
            ws.cell(row=start + i, column=1, value=2003 + i)
            ws.cell(row=start + i, column=2, value="ICML %d" % (2003 + i))
        if active:
            wb.create_sheet("Other", 0)
            wb.active = 0
        b = io.BytesIO()
        wb.save(b)
        return b.getvalue()
    variants = {
        "first names": first, "alternates": alt, "with state": [c + ", USA" for c in first],
        "upper": [c.upper() for c in first], "accents": [c.replace("Montreal", "Montréal") for c in first],
        "curly apostrophe": [c.replace("Banff", "Alberta’s Rockies") for c in first],
        "swapped": [first[1], first[0]] + first[2:], "one missing": first[:-1], "blank cell": first[:5] + [None] + first[6:],
        "lake tahoe for LA": first[:14] + ["Lake Tahoe"] + first[15:], "punctuation": [c.replace(" ", "-") + "!" for c in first],
        "numbers": [2003 + i for i in range(21)], "shifted down": None, "other sheet active": None, "extra rows": first + ["Paris", "Rome"],
    }
    for note, cities in variants.items():
        if note == "shifted down":
            data = book(first, start=3)
        elif note == "other sheet active":
            data = book(first, active=1)
        else:
            data = book(cities)
        for r in rules:
            cases.add("compare_conference_city_in_order", F(store.put(data, "xlsx")), r, note=note)
    short = {"expected": exp[:10]}
    cases.add("compare_conference_city_in_order", F(store.put(book(first), "xlsx")), short, note="rules shorter than the range")
    cases.add("compare_conference_city_in_order", F(store.put(book(first[:10]), "xlsx")), short, note="rules shorter, ten rows")
    cases.add("compare_conference_city_in_order", F(store.put(book(first), "xlsx")), {"expected": [1] * 21}, note="non-string rule")
    # LibreOffice re-saving the openpyxl file
    tmp = tempfile.mkdtemp(prefix="oracle-city-")
    src = os.path.join(tmp, "cities.xlsx")
    with open(src, "wb") as f:
        f.write(book(alt))
    conv = soffice_convert([src], "xlsx", os.path.join(tmp, "out"))
    if src in conv:
        for r in rules:
            cases.add("compare_conference_city_in_order", F(store.put(conv[src], "xlsx")), r, note="libreoffice resaved")


def _mp3(title=None, artist=None, id3=None, extra=()):
    """A short silent mp3 written by ffmpeg (libmp3lame) with ID3 tags."""
    import subprocess
    fd, p = tempfile.mkstemp(suffix=".mp3")
    os.close(fd)
    cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "0.1",
           "-c:a", "libmp3lame", "-b:a", "8k", "-fflags", "+bitexact", "-flags:a", "+bitexact"]
    if title is not None:
        cmd += ["-metadata", "title=" + title]
    if artist is not None:
        cmd += ["-metadata", "artist=" + artist]
    if id3 == "none":
        cmd += ["-write_id3v2", "0"]
    elif id3:
        cmd += ["-id3v2_version", str(id3)]
    cmd += list(extra) + [p]
    subprocess.run(cmd, check=True)
    with open(p, "rb") as f:
        data = f.read()
    os.remove(p)
    return data


def fam_mp3(cases, store, tasks):
    rules = distinct(rules_of(u) for u in uses(tasks, "check_mp3_meta"))
    for r in rules[:3]:
        t, a = r["title"]["ref"], r["artist"]["ref"]
        files = {
            "tagged": _mp3(t, a), "id3v2.3": _mp3(t, a, id3=3), "swapped": _mp3(a, t), "title only": _mp3(t),
            "no tags": _mp3(), "no id3": _mp3(t, a, id3="none"), "title spaced": _mp3(t + " ", a),
            "lower case": _mp3(t.lower(), a.lower()), "artist pair": _mp3(t, a + "/" + a),
        }
        for k, data in files.items():
            cases.add("check_mp3_meta", F(store.put(data, "mp3")), r, note="%s (%s)" % (k, t))
    r = rules[0]
    t, a = r["title"]["ref"], r["artist"]["ref"]
    tagged = F(store.put(_mp3(t, a), "mp3"))
    for rr in [{"title": {"method": "re", "ref": "^Missing"}}, {"title": {"method": "ne", "ref": t}},
               {"album": {"method": "eq", "ref": ""}}, {"title": {"method": "re.I", "ref": "missing you"}}]:
        cases.add("check_mp3_meta", tagged, rr, note="rule " + json.dumps(rr))
    cases.add("check_mp3_meta", F(store.put(_mp3("忘不了", "成湘"), "mp3")), {"title": {"method": "eq", "ref": "忘不了"}, "artist": {"method": "eq", "ref": "成湘"}}, note="cjk tags")
    cases.add("check_mp3_meta", None, r, note="no file")
    cases.add("check_mp3_meta", F(store.put(b"ID3 not really", "mp3")), r, note="broken")


EPUB_CONTAINER = ('<?xml version="1.0" encoding="UTF-8"?>\n<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">\n'
                  '  <rootfiles>\n    <rootfile full-path="content.opf" media-type="application/oebps-package+xml"/>\n  </rootfiles>\n</container>\n')


def _epub(chapters, ident="urn:uuid:1b5f0e0c-0000-4000-8000-000000000001", title="Pass Through", prefix="", ext=".html",
          toc=True, opf=True, newline="\n", indent="", head=True):
    names = ["%schapter%d%s" % (prefix, i + 1, ext) for i in range(len(chapters))]
    manifest = "".join('    <item id="c%d" href="%s" media-type="application/xhtml+xml"/>\n' % (i + 1, n) for i, n in enumerate(names))
    spine = "".join('    <itemref idref="c%d"/>\n' % (i + 1) for i in range(len(names)))
    opf_s = ('<?xml version="1.0" encoding="utf-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="uuid_id">\n'
             '  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">\n    <dc:title>%s</dc:title>\n'
             '    <dc:identifier id="uuid_id">%s</dc:identifier>\n    <dc:language>en</dc:language>\n  </metadata>\n'
             '  <manifest>\n%s    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>\n  </manifest>\n'
             '  <spine toc="ncx">\n%s  </spine>\n</package>\n') % (title, ident, manifest, spine)
    nav = "".join('    <navPoint id="np%d" playOrder="%d"><navLabel><text>Chapter %d</text></navLabel><content src="%s"/></navPoint>\n'
                  % (i + 1, i + 1, i + 1, n) for i, n in enumerate(names))
    ncx = ('<?xml version="1.0" encoding="utf-8"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">\n'
           '  <head><meta name="dtb:uid" content="%s"/></head>\n  <docTitle><text>%s</text></docTitle>\n  <navMap>\n%s  </navMap>\n</ncx>\n') % (ident, title, nav)
    ent = [("mimetype", b"application/epub+zip"), ("META-INF/container.xml", EPUB_CONTAINER.encode())]
    if opf:
        ent.append(("content.opf", opf_s.encode()))
    if toc:
        ent.append(("toc.ncx", ncx.encode()))
    for n, (h1, paras) in zip(names, chapters):
        html = ('<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">\n<head>\n<title>%s</title>\n</head>\n'
                '<body>\n<h1>%s</h1>\n%s</body>\n</html>\n') % (h1, h1, "".join("<p>%s</p>\n" % p for p in paras))
        if not head:
            html = html.replace("<head>\n<title>%s</title>\n</head>\n" % h1, "")
        ent.append((n, html.replace("\n", newline + indent).encode()))
    return _zip(ent)


def fam_epub(cases, store, tasks):
    ch = [("Chapter 1", ["It was a cold morning.", "She walked to the station."]),
          ("Chapter 2", ["The train was late.", "Nobody spoke."]),
          ("Chapter 3", ["At last the doors opened."])]
    books = {
        "gold": _epub(ch), "new identifier": _epub(ch, ident="urn:uuid:99999999-0000-4000-8000-000000000002"),
        "crlf": _epub(ch, newline="\r\n"), "one paragraph changed": _epub([ch[0], ("Chapter 2", ["The train was early.", "Nobody spoke."]), ch[2]]),
        "paragraph added": _epub([ch[0], ("Chapter 2", ch[1][1] + ["A dog barked."]), ch[2]]),
        "chapter missing": _epub(ch[:2]), "title changed": _epub(ch, title="Pass through"),
        "no toc": _epub(ch, toc=False), "no opf": _epub(ch, opf=False), "xhtml": _epub(ch, ext=".xhtml"),
        "in folder": _epub(ch, prefix="OEBPS/"), "chapters swapped": _epub([ch[1], ch[0], ch[2]]),
        "indented": _epub(ch, indent="  "), "no head": _epub(ch, head=False),
        "indented, one changed": _epub([ch[0], ("Chapter 2", ["The train was early.", "Nobody spoke."]), ch[2]], indent="  "),
    }
    rich = [("Chapter 1", ['It was a <i>cold</i> morning,<br/>and <span class="x">she</span> left.', "A&amp;B &lt;C&gt; caf\u00e9&#160;ok"]),
            ("Chapter 2", ['<a href="#n1">1</a> note', "x<b>y</b>z"])]
    books["rich"] = _epub(rich, indent="\t")
    books["rich, one changed"] = _epub([rich[0], ("Chapter 2", ['<a href="#n1">1</a> note', "x<b>Y</b>z"])], indent="\t")
    books["rich, nested"] = _epub([(h, ["<div>%s</div>" % p for p in ps]) for h, ps in rich], indent="  ")
    files = {k: F(store.put(v, "epub")) for k, v in books.items()}
    files["broken"] = F(store.put(b"PK\x03\x04 not an epub", "epub"))
    for k, f in files.items():
        cases.add("compare_epub", f, files["gold"], note="%s vs gold" % k)
    for k in ["gold", "broken", "no toc"]:
        cases.add("compare_epub", files[k], files["broken"], note="%s vs broken" % k)
    for k in ["indented, one changed", "no head", "gold"]:
        cases.add("compare_epub", files[k], files["indented"], note="%s vs indented" % k)
    for k in ["rich", "rich, one changed", "rich, nested"]:
        cases.add("compare_epub", files[k], files["rich"], note="%s vs rich" % k)
    cases.add("compare_epub", files["gold"], files["xhtml"], note="gold vs xhtml")
    cases.add("compare_epub", None, files["gold"], note="no result")


def fam_result_files(cases, store, tasks):
    golds = ["42", "3.14159", "0.5", "answer", "1e3", "-7"]
    preds = ["42", "42\n", "42.0", "The answer is 42", "42.00001", "42.001", "41.99999", " 3.14159 ", "3.14", "pi=3.14159",
             "0.50", ".5", "answer", "Answer", "answer\n\n", "1000", "1e3", "-7", "- 7", "", "nan", "inf", "4 2"]
    for g in golds:
        for p in preds:
            cases.add("compare_result_files", text(store, p), text(store, g + "\n"), note="%r vs %r" % (p, g))
    cases.add("compare_result_files", None, text(store, "42"), note="no result")
    cases.add("compare_result_files", text(store, "caf\u00e9", encoding="latin-1"), text(store, "42"), note="latin-1 result")


def fam_unavailable(cases, store, tasks):
    # compare_audios needs librosa and fastdtw, compare_image_text easyocr:
    # only the paths OSWorld takes before them are in the oracle.
    wav = F(store.put(b"RIFF\x24\x00\x00\x00WAVEfmt ", "wav"))
    cases.add("compare_audios", None, wav, note="no result")
    cases.add("compare_audios", wav, None, note="no expected")
    cases.add("compare_audios", "", wav, note="empty path")
    for r in distinct(rules_of(u) for u in uses(tasks, "compare_image_text")):
        cases.add("compare_image_text", None, r, note="no image")
        cases.add("compare_image_text", "missing.png", r, note="file not found")


FAMILIES.extend([
    ("chromedb", fam_chrome_db),
    ("sqlite3", fam_sqlite3),
    ("archives", fam_archives),
    ("a11y", fam_a11y),
    ("tbfolder", fam_thunderbird_folder),
    ("references", fam_references),
    ("testsuite", fam_test_suite),
    ("conference", fam_conference),
    ("mp3", fam_mp3),
    ("epub", fam_epub),
    ("resultfiles", fam_result_files),
    ("unavailable", fam_unavailable),
])


# ---------------------------------------------------------------- sheets

from sheets import fam_junk, fam_odt, fam_pdf_images, fam_sheet_print, fam_sheets, fam_text_encoding  # noqa: E402

FAMILIES.extend([
    ("sheets", fam_sheets),
    ("sheetprint", fam_sheet_print),
    ("junk", fam_junk),
    ("pdfimg", fam_pdf_images),
    ("textenc", fam_text_encoding),
    ("odt", fam_odt),
])

from pdftext import fam_pdf_text  # noqa: E402

FAMILIES.extend([
    ("pdftext", fam_pdf_text),
])
