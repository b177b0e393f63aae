package task

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Getters of times relative to the evaluation: rule_relativeTime turns
// the dates a task names relative to today ("tomorrow", "next Monday")
// into the texts its rules expect, time_diff_range answers the task's
// allowed difference. Today is the runner's local date, as OSWorld's
// datetime.now().

func init() {
	addGetters(map[string]getterSpec{
		"rule_relativeTime": {checkRelativeTime, (*run).ruleRelativeTime},
		"time_diff_range":   {checkNoParams, (*run).timeDiffRange},
	})
}

// relativeDays are the relative times OSWorld knows; those with a number
// are that many days from today, the others are computed on their own.
var relativeDays = map[string]int{
	"tomorrow":                       1,
	"5th next month":                 -1,
	"10th next month":                -1,
	"11th next month":                -1,
	"this month":                     -1,
	"this Saturday":                  -1,
	"this Sunday":                    -1,
	"next Monday":                    -1,
	"next Friday":                    -1,
	"first monday four months later": -1,
}

// The relative times OSWorld computes in each position: alone ("from"
// without "to"), as a range's start, as a range's end.
var (
	relativeAlone = []string{"5th next month", "10th next month", "this month", "next Monday", "first monday four months later"}
	relativeFrom  = []string{"this Saturday", "10th next month", "next Monday"}
	relativeTo    = []string{"this Sunday", "11th next month", "next Friday"}
)

func checkRelativeTime(f fields) error {
	rules, ok := f.m["rules"].(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object, got %s", f.name("rules"), typeName(f.m["rules"]))
	}
	rf := fields{m: rules, path: f.name("rules")}
	rel, ok := rules["relativeTime"].(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object, got %s", rf.name("relativeTime"), typeName(rules["relativeTime"]))
	}
	exp, ok := rules["expected"].(map[string]any)
	if !ok {
		return fmt.Errorf("%s: want an object, got %s", rf.name("expected"), typeName(rules["expected"]))
	}
	relf := fields{m: rel, path: rf.name("relativeTime")}
	expf := fields{m: exp, path: rf.name("expected")}
	type slot struct{ rel, exp string }
	slots := []slot{{"from", "time"}}
	if _, ok := rel["to"]; ok {
		slots = []slot{{"from", "from"}, {"to", "to"}}
	}
	for _, s := range slots {
		name, err := relf.str(s.rel, true)
		if err != nil {
			return err
		}
		known := relativeAlone
		if len(slots) == 2 {
			known = relativeFrom
			if s.rel == "to" {
				known = relativeTo
			}
		}
		if days, ok := relativeDays[name]; !ok || (days < 0 && !containsString(known, name)) {
			return fmt.Errorf("%s: %q is not a relative time OSWorld computes here", relf.name(s.rel), name)
		}
		if _, err := expf.str(s.exp, true); err != nil {
			return err
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

// relativeDay computes a relative time as OSWorld does; from is the
// range's start when name is its end ("next Friday" depends on it).
func relativeDay(now time.Time, name, position, from string) (time.Time, error) {
	if days := relativeDays[name]; days > 0 {
		return now.AddDate(0, 0, days), nil
	}
	wd := pyWeekday(now)
	switch name {
	case "5th next month":
		return nextMonthDay(now, 5), nil
	case "10th next month":
		return nextMonthDay(now, 10), nil
	case "11th next month":
		return nextMonthDay(now, 11), nil
	case "this month":
		return now, nil
	case "next Monday":
		return now.AddDate(0, 0, 6-wd+1), nil
	case "this Saturday":
		return now.AddDate(0, 0, 5-wd), nil
	case "this Sunday":
		return now.AddDate(0, 0, 6-wd), nil
	case "next Friday":
		switch {
		case wd < 4 && from == "next Monday":
			return now.AddDate(0, 0, 4-wd+7), nil
		case wd < 4:
			return now.AddDate(0, 0, 4-wd), nil
		default:
			return now.AddDate(0, 0, 6-wd+5), nil
		}
	case "first monday four months later":
		// OSWorld's month arithmetic, (month + 4) % 12, gives 0 from
		// August, which Python refuses; that month is December here.
		y, m := now.Year(), (int(now.Month())+4)%12
		if now.Month() >= 9 {
			y++
		}
		if m == 0 {
			m = 12
		}
		first := dayOf(y, time.Month(m), 1, now.Location())
		return first.AddDate(0, 0, (6-pyWeekday(first)+1)%7), nil
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
	} {
		format = strings.Replace(format, r[0], r[1], 1)
	}
	return format
}

// ruleRelativeTime answers the rules with the expected times filled for
// today: expected.time from relativeTime.from, or expected.from and
// expected.to from a range.
func (r *run) ruleRelativeTime(_ context.Context, p map[string]any) (any, error) {
	rules := cloneJSON(p["rules"]).(map[string]any)
	rel := rules["relativeTime"].(map[string]any)
	exp := rules["expected"].(map[string]any)
	now := time.Now()
	from, _ := rel["from"].(string)
	if to, ok := rel["to"].(string); ok {
		a, err := relativeDay(now, from, "from", "")
		if err != nil {
			return nil, err
		}
		b, err := relativeDay(now, to, "to", from)
		if err != nil {
			return nil, err
		}
		exp["from"] = timeFormat(exp["from"].(string), a)
		exp["to"] = timeFormat(exp["to"].(string), b)
		return rules, nil
	}
	t, err := relativeDay(now, from, "from", "")
	if err != nil {
		return nil, err
	}
	exp["time"] = timeFormat(exp["time"].(string), t)
	return rules, nil
}

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
