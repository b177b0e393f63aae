package task

import (
	"strings"
	"testing"
	"time"
)

func TestRelativeDay(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.ParseInLocation("2006-01-02 15:04", s, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	wed, sat := day("2026-11-25 09:30"), day("2026-11-28 09:30")
	for _, tt := range []struct {
		now          time.Time
		name, from   string
		format, want string
		position     string
	}{
		{now: wed, name: "tomorrow", format: "{DoW}, {Month} {DayD}, {Year}", want: "Thu, Nov 26, 2026"},
		{now: wed, name: "next Monday", format: "{Year}-{Month0D}-{Day0D}", want: "2026-11-30"},
		{now: day("2026-12-14 08:00"), name: "next Monday", format: "{Year}-{Month0D}-{Day0D}", want: "2026-12-21"},
		{now: wed, name: "this Saturday", format: "{DoW}, {Month} {Day0D}", want: "Sat, Nov 28"},
		{now: wed, name: "this Sunday", position: "to", format: "{DoW}, {Month} {Day0D}", want: "Sun, Nov 29"},
		{now: wed, name: "next Friday", position: "to", from: "next Monday", format: "{DoW}, {DayD} {Month} {Year}, 10:00", want: "Fri, 4 Dec 2026, 10:00"},
		{now: wed, name: "next Friday", position: "to", format: "{DoW}, {DayD} {Month} {Year}", want: "Fri, 27 Nov 2026"},
		{now: sat, name: "next Friday", position: "to", from: "next Monday", format: "{DoW}, {DayD} {Month} {Year}", want: "Fri, 4 Dec 2026"},
		{now: day("2026-12-31 23:00"), name: "5th next month", format: "{DoW}, {Month} {DayD}, {Year}", want: "Tue, Jan 5, 2027"},
		{now: wed, name: "10th next month", format: "{Year}-{Month0D}-{DayD}", want: "2026-12-10"},
		{now: wed, name: "11th next month", position: "to", format: "{DoW}, {Month} {Day0D}, 12:00 PM", want: "Fri, Dec 11, 12:00 PM"},
		{now: wed, name: "this month", format: "{month}-weather", want: "november-weather"},
		{now: wed, name: "first monday four months later", format: "{MonthFull} {Day0D}, 10:15 am", want: "March 01, 10:15 am"},
		{now: day("2026-08-03 12:00"), name: "first monday four months later", format: "{MonthFull} {Day0D}", want: "December 07"},
		{now: wed, name: "tomorrow", format: "{DayD} {DayD}", want: "26 {DayD}"}, // each placeholder once, as OSWorld
		{now: wed, name: "first monday eight months later", format: "{MonthFull} {Day0D}, 10:15 AM", want: "July 05, 10:15 AM"},
		{now: wed, name: "next week Saturday", format: "{DoW}, {Month} {Day0D}", want: "Sat, Dec 05"},
		{now: wed, name: "next week Sunday", position: "to", from: "next week Saturday", format: "{DoW}, {Month} {Day0D}", want: "Sun, Dec 06"},
		{now: wed, name: "next week Friday", format: "{DoW}, {Month} {Day0D}", want: "Fri, Dec 04"},
		{now: wed, name: "next Monday split", format: "{DayD}/{MonthD}/{Year}", want: "30/11/2026"},
		{now: wed, name: "next Friday split", position: "to", from: "next Monday split", format: "{DayD}/{MonthD}/{Year}", want: "4/12/2026"},
		{now: sat, name: "next Saturday", format: "{DoW}, {Month} {Day0D}", want: "Sat, Dec 05"},
		{now: wed, name: "next Sunday", position: "to", from: "next Friday", format: "{DoW}, {Month} {Day0D}", want: "Sun, Nov 29"},
	} {
		pos := tt.position
		if pos == "" {
			pos = "from"
		}
		var start time.Time
		if tt.from != "" {
			var err error
			if start, err = relativeDay(tt.now, tt.from, "from", "", time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
		d, err := relativeDay(tt.now, tt.name, pos, tt.from, start)
		if err != nil {
			t.Errorf("%s from %s: %v", tt.name, tt.now, err)
			continue
		}
		if got := timeFormat(tt.format, d); got != tt.want {
			t.Errorf("%s from %s (%s): %q, want %q", tt.name, tt.now.Format("Mon 2006-01-02"), tt.format, got, tt.want)
		}
	}
}

func TestRuleRelativeTimeGetter(t *testing.T) {
	_, get := profileRun(t, t.TempDir())
	rules, ok := get(`{"type": "rule_relativeTime", "rules": {"relativeTime": {"from": "tomorrow"}, "expected": {"start": "NYC", "time": "{Year}-{Month0D}-{Day0D}"}}}`).(map[string]any)
	if !ok {
		t.Fatalf("rule_relativeTime gave %#v", rules)
	}
	exp := rules["expected"].(map[string]any)
	tomorrow := time.Now().AddDate(0, 0, 1).Format("2006-01-02")
	if exp["time"] != tomorrow || exp["start"] != "NYC" {
		t.Errorf("expected = %v, want time %s and start NYC", exp, tomorrow)
	}
	rng := get(`{"type": "rule_relativeTime", "rules": {"relativeTime": {"from": "this Saturday", "to": "this Sunday"}, "expected": {"from": "{DoW}", "to": "{DoW}"}}}`).(map[string]any)["expected"].(map[string]any)
	if rng["from"] != "Sat" || rng["to"] != "Sun" {
		t.Errorf("range = %v, want Sat and Sun", rng)
	}
	if got := get(`{"type": "time_diff_range", "diff_range_in_minutes": "60"}`); got != "60" {
		t.Errorf("time_diff_range = %#v, want \"60\"", got)
	}

	for js, want := range map[string]string{
		`{"type": "rule_relativeTime", "rules": {"relativeTime": {"from": "yesterday"}, "expected": {"time": "x"}}}`:                                  `result.rules.relativeTime.from: "yesterday" is not a relative time`,
		`{"type": "rule_relativeTime", "rules": {"relativeTime": {"from": "this month", "to": "this Sunday"}, "expected": {"from": "x", "to": "y"}}}`: `result.rules.relativeTime.from: "this month" is not a relative time`,
		`{"type": "rule_relativeTime", "rules": {"relativeTime": {"from": "tomorrow"}, "expected": {"date": "x"}}}`:                                   `result.rules.expected.time: required`,
		`{"type": "rule_relativeTime", "rules": {"expected": {"time": "x"}}}`:                                                                         `result.rules.relativeTime: want an object`,
	} {
		_, err := buildGetter(jv(t, js), "result")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", js, err, want)
		}
	}
}
