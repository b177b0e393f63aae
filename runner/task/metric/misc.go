package metric

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/office"
)

// Metrics of single multi-app tasks: fuzzy_place_math (three addresses
// typed into a Writer document), compare_time_in_speedtest_results (a
// speed test exported within the last minutes) and
// check_html_background_image (a page's style sheet naming an image).

func checkPlaceRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	l, ok := m["expected"].([]any)
	if !ok {
		return fmt.Errorf("expected: want a list of strings, got %s", py.TypeName(m["expected"]))
	}
	for i, v := range l {
		if _, ok := v.(string); !ok {
			return fmt.Errorf("expected[%d]: want a string, got %s", i, py.TypeName(v))
		}
	}
	return nil
}

// fuzzyPlaceMath implements OSWorld's fuzzy_place_math
// (desktop_env/evaluators/metrics/general.py).
//
// fuzzyPlaceMath splits the document's paragraphs into words; exactly
// three words must be there, and the score is the mean over them of the
// best fuzz ratio against the expected answers.
func fuzzyPlaceMath(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result file", nil
	}
	d, err := office.OpenDOCX(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	var words []string
	for _, t := range d.Texts() {
		words = append(words, strings.Fields(t)...)
	}
	if len(words) != 3 {
		return 0, fmt.Sprintf("the document holds %d words, want 3", len(words)), nil
	}
	answers, _ := rules["expected"].([]any)
	total := 0.0
	var details []string
	for _, w := range words {
		best := 0.0
		for _, a := range answers {
			s, _ := a.(string)
			best = math.Max(best, py.FuzzRatio(w, s)/100)
		}
		if best < 1 {
			details = append(details, fmt.Sprintf("%q matches at best %.2f", py.Truncate(w, 60), best))
		}
		total += best
	}
	return total / 3, strings.Join(details, "; "), nil
}

// compareSpeedtestTime implements OSWorld's
// compare_time_in_speedtest_results
// (desktop_env/evaluators/metrics/general.py).
//
// compareSpeedtestTime reads the time (HH:MM, the end of the second
// field of the first data row) of a speed test export and scores 1 when
// it is within expected minutes of the local time of day now.
func compareSpeedtestTime(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	limit, err := strconv.Atoi(strings.TrimSpace(py.Str(expected)))
	if err != nil {
		return 0, fmt.Sprintf("expected: want a number of minutes, got %s", py.Truncate(py.Repr(expected), 50)), nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) < 2 {
		return 0, "result: no data row", nil
	}
	fields := strings.Split(lines[1], ",")
	if len(fields) < 2 {
		return 0, "result: the data row has no second field", nil
	}
	date := fields[1]
	if len(date) > 5 {
		date = date[len(date)-5:]
	}
	at, err := time.Parse("15:04", date)
	if err != nil {
		return 0, fmt.Sprintf("result: %q does not end with a time HH:MM", py.Truncate(fields[1], 60)), nil
	}
	now, _ := time.Parse("15:04", time.Now().Format("15:04"))
	if diff := math.Abs(at.Sub(now).Minutes()); !(diff < float64(limit)) {
		return 0, fmt.Sprintf("the test ran at %s, %.0f minutes from now (limit %d)", date, diff, limit), nil
	}
	return 1, "", nil
}

var styleElement = regexp.MustCompile(`(?is)<style\b[^>]*>(.*?)</style\s*>`)

// checkHTMLBackgroundImage implements OSWorld's
// check_html_background_image (desktop_env/evaluators/metrics/vscode.py).
//
// checkHTMLBackgroundImage scores 1 when a <style> element contains
// "background-image: url('VALUE')".
func checkHTMLBackgroundImage(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	want := "background-image: url('" + py.Str(rules["value"]) + "')"
	for _, m := range styleElement.FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], want) {
			return 1, "", nil
		}
	}
	return 0, fmt.Sprintf("no <style> sets %s", want), nil
}
