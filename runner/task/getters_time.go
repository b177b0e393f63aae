package task

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/py"
)

// Getters of times relative to the evaluation: rule_relativeTime turns
// the dates a task names relative to today ("tomorrow", "next Monday")
// into the texts its rules expect, time_diff_range answers the task's
// allowed difference. Today is the runner's local date, as OSWorld's
// datetime.now().

// The relative times OSWorld computes in each position: alone ("from"
// without "to"), as a range's start, as a range's end. A name OSWorld
// lists but does not compute in that position leaves its date unset and
// its getter raises; deskrun refuses such a task at load.
var (
	relativeAlone = []string{"tomorrow", "5th next month", "10th next month", "this month", "next Monday",
		"first monday four months later", "first monday eight months later"}
	relativeFrom = []string{"tomorrow", "this Saturday", "10th next month", "next Monday", "next Monday split",
		"next Friday", "next Saturday", "next week Friday", "next week Saturday", "next week Sunday"}
	relativeTo = []string{"tomorrow", "this Sunday", "11th next month", "next Friday", "next Friday split",
		"next Sunday", "next week Sunday"}
)

// relativeSlots are the expected keys a relative time fills: the "split"
// forms fill day, month and year apart (puDay... for a start, doDay... for
// an end), the others "time" alone or "from" and "to" in a range.
func relativeSlots(name, position string, rangeOf bool) []string {
	switch {
	case name == "next Monday split" && position == "from":
		return []string{"puDay", "puMonth", "puYear"}
	case name == "next Friday split" && position == "to":
		return []string{"doDay", "doMonth", "doYear"}
	case !rangeOf:
		return []string{"time"}
	}
	return []string{position}
}

func checkRelativeTime(f fields) error {
	rules, ok := f.m["rules"].(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object, got %s", f.name("rules"), py.TypeName(f.m["rules"]))
	}
	rf := fields{m: rules, path: f.name("rules")}
	rel, ok := rules["relativeTime"].(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object, got %s", rf.name("relativeTime"), py.TypeName(rules["relativeTime"]))
	}
	exp, ok := rules["expected"].(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object, got %s", rf.name("expected"), py.TypeName(rules["expected"]))
	}
	if tz, ok := rules["timezone"]; ok {
		name, ok := tz.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %s", rf.name("timezone"), py.TypeName(tz))
		}
		if _, err := time.LoadLocation(name); err != nil {
			// OSWorld falls back to UTC; deskrun says so at load.
			return fmt.Errorf("%s: %q is not a time zone", rf.name("timezone"), name)
		}
	}
	relf := fields{m: rel, path: rf.name("relativeTime")}
	expf := fields{m: exp, path: rf.name("expected")}
	_, rangeOf := rel["to"]
	positions := []string{"from"}
	if rangeOf {
		positions = []string{"from", "to"}
	}
	for _, pos := range positions {
		name, err := relf.str(pos, true)
		if err != nil {
			return err
		}
		known := relativeAlone
		if rangeOf {
			known = relativeFrom
			if pos == "to" {
				known = relativeTo
			}
		}
		if !containsString(known, name) {
			return fmt.Errorf("%s: %q is not a relative time OSWorld computes here", relf.name(pos), name)
		}
		for _, key := range relativeSlots(name, pos, rangeOf) {
			if key == "time" {
				// A list of formats is filled item by item.
				if l, ok := exp[key].([]any); ok {
					for i, e := range l {
						if _, ok := e.(string); !ok {
							return fmt.Errorf("%s[%d]: want a string, got %s", expf.name(key), i, py.TypeName(e))
						}
					}
					continue
				}
			}
			if _, err := expf.str(key, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// pyWeekday is Python's weekday(): Monday 0 to Sunday 6.
func pyWeekday(t time.Time) int { return (int(t.Weekday()) + 6) % 7 }

func dayOf(y int, m time.Month, d int, loc *time.Location) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// nextMonthDay is the day d of next month.
func nextMonthDay(now time.Time, d int) time.Time {
	y, m := now.Year(), now.Month()+1
	if m > 12 {
		y, m = y+1, 1
	}
	return dayOf(y, m, d, now.Location())
}

// firstMondayLater is OSWorld's "first monday N months later": the year
// moves on from month 13-N, the month is (month + N) % 12. That gives 0
// for month 12-N, which Python refuses; that month is December here.
func firstMondayLater(now time.Time, n int) time.Time {
	y, m := now.Year(), (int(now.Month())+n)%12
	if int(now.Month()) >= 13-n {
		y++
	}
	if m == 0 {
		m = 12
	}
	first := dayOf(y, time.Month(m), 1, now.Location())
	return first.AddDate(0, 0, (6-pyWeekday(first)+1)%7)
}

// relativeDay computes a relative time as OSWorld's current
// rule_relativeTime does; start is the range's start (zero alone or for a
// start), fromName its name.
func relativeDay(now time.Time, name, position, fromName string, start time.Time) (time.Time, error) {
	wd := pyWeekday(now)
	days := func(n int) time.Time { return now.AddDate(0, 0, n) }
	switch name {
	case "tomorrow":
		return days(1), nil
	case "5th next month":
		return nextMonthDay(now, 5), nil
	case "10th next month":
		return nextMonthDay(now, 10), nil
	case "11th next month":
		return nextMonthDay(now, 11), nil
	case "this month":
		return now, nil
	case "first monday four months later":
		return firstMondayLater(now, 4), nil
	case "first monday eight months later":
		return firstMondayLater(now, 8), nil
	case "this Saturday":
		return days(5 - wd), nil
	case "this Sunday":
		return days(6 - wd), nil
	case "next Monday", "next Monday split":
		return days(6 - wd + 1), nil
	case "next week Friday":
		return days(7 - wd + 4), nil
	case "next week Saturday":
		return days(7 - wd + 5), nil
	}
	if position == "from" {
		switch name {
		case "next Friday":
			switch {
			case wd < 4:
				return days(4 - wd), nil
			case wd == 4:
				return days(7), nil
			}
			return days(7 - wd + 4), nil
		case "next Saturday":
			switch {
			case wd < 5:
				return days(5 - wd), nil
			case wd == 5:
				return days(7), nil
			}
			return days(6), nil
		case "next week Sunday":
			return days(7 - wd + 6), nil
		}
	} else {
		switch name {
		case "next Friday", "next Friday split":
			if fromName == "next Monday" || fromName == "next Monday split" {
				return start.AddDate(0, 0, 4), nil
			}
			if wd < 4 {
				return days(4 - wd), nil
			}
			return days(6 - wd + 5), nil
		case "next Sunday":
			if fromName == "next Friday" || fromName == "next Saturday" {
				return start.AddDate(0, 0, 6-pyWeekday(start)), nil
			}
			if wd < 6 {
				return days(6 - wd), nil
			}
			return days(7), nil
		case "next week Sunday":
			if fromName == "next week Friday" || fromName == "next week Saturday" {
				return start.AddDate(0, 0, 6-pyWeekday(start)), nil
			}
			return days(7 - wd + 6), nil
		}
	}
	return time.Time{}, fmt.Errorf("relativeTime.%s: %q cannot be computed", position, name)
}

// timeFormat fills OSWorld's placeholders, each once, in OSWorld's order.
func timeFormat(format string, t time.Time) string {
	two := func(n int) string {
		if n < 10 {
			return "0" + strconv.Itoa(n)
		}
		return strconv.Itoa(n)
	}
	month := t.Month().String()
	for _, r := range [][2]string{
		{"{DoW}", t.Weekday().String()[:3]},
		{"{Month}", month[:3]},
		{"{DayD}", strconv.Itoa(t.Day())},
		{"{Year}", strconv.Itoa(t.Year())},
		{"{Month0D}", two(int(t.Month()))},
		{"{month}", strings.ToLower(month)},
		{"{MonthFull}", month},
		{"{Day0D}", two(t.Day())},
		{"{MonthD}", strconv.Itoa(int(t.Month()))},
	} {
		format = strings.Replace(format, r[0], r[1], 1)
	}
	return format
}

// ruleRelativeTime implements OSWorld's rule_relativeTime
// (desktop_env/evaluators/getters/misc.py).
//
// ruleRelativeTime answers the rules with the expected times filled for
// today (in rules.timezone when given, else the runner's local time):
// expected.time (one format or a list) from relativeTime.from, or from a
// range expected.from and expected.to, or the day, month and year apart for
// the "split" forms.
func (r *run) ruleRelativeTime(_ context.Context, p map[string]any) (any, error) {
	rules := cloneJSON(p["rules"]).(map[string]any)
	rel := rules["relativeTime"].(map[string]any)
	exp := rules["expected"].(map[string]any)
	now := time.Now()
	if tz, ok := rules["timezone"].(string); ok {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return nil, fmt.Errorf("rules.timezone: %w", err)
		}
		now = now.In(loc)
	}
	fill := func(name, pos string, rangeOf bool, t time.Time) {
		for _, key := range relativeSlots(name, pos, rangeOf) {
			if l, ok := exp[key].([]any); ok {
				out := make([]any, len(l))
				for i, e := range l {
					out[i] = timeFormat(e.(string), t)
				}
				exp[key] = out
				continue
			}
			exp[key] = timeFormat(exp[key].(string), t)
		}
	}
	from, _ := rel["from"].(string)
	if to, ok := rel["to"].(string); ok {
		a, err := relativeDay(now, from, "from", "", time.Time{})
		if err != nil {
			return nil, err
		}
		b, err := relativeDay(now, to, "to", from, a)
		if err != nil {
			return nil, err
		}
		fill(from, "from", true, a)
		fill(to, "to", true, b)
		return rules, nil
	}
	t, err := relativeDay(now, from, "from", "", time.Time{})
	if err != nil {
		return nil, err
	}
	fill(from, "from", false, t)
	return rules, nil
}

// timeDiffRange implements OSWorld's time_diff_range
// (desktop_env/evaluators/getters/misc.py).
//
// timeDiffRange answers diff_range_in_minutes as written, nil without.
func (r *run) timeDiffRange(_ context.Context, p map[string]any) (any, error) {
	return p["diff_range_in_minutes"], nil
}

// cloneJSON copies a value of the data model, objects and lists deeply.
func cloneJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneJSON(e)
		}
		return out
	}
	return v
}
