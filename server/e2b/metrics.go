package e2b

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
	"github.com/deskrun/deskrun/runner"
	"github.com/labstack/echo/v4"
)

// sandboxMetric is E2B's SandboxMetric.
type sandboxMetric struct {
	Timestamp     time.Time `json:"timestamp"`
	TimestampUnix int64     `json:"timestampUnix"`
	CPUCount      int       `json:"cpuCount"`
	CPUUsedPct    float64   `json:"cpuUsedPct"`
	MemUsed       int64     `json:"memUsed"`
	MemTotal      int64     `json:"memTotal"`
	MemCache      int64     `json:"memCache"`
	DiskUsed      int64     `json:"diskUsed"`
	DiskTotal     int64     `json:"diskTotal"`
}

// metricsTimeout bounds one read of a sandbox's envd /metrics.
const metricsTimeout = 10 * time.Second

// readMetrics asks the session's agentd (envd's GET /metrics) what the
// sandbox has and uses now.
func (f *Front) readMetrics(ctx context.Context, sess *runner.Session) (envdapi.Metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, metricsTimeout)
	defer cancel()
	inst := sess.Instance()
	return agentdclient.NewClient(inst.AgentURL, inst.Token, &http.Client{Transport: f.envd}).EnvdMetrics(ctx)
}

func metricOf(m envdapi.Metrics) sandboxMetric {
	return sandboxMetric{
		Timestamp: time.Unix(m.TS, 0).UTC(), TimestampUnix: m.TS, CPUCount: m.CPUCount, CPUUsedPct: m.CPUUsedPct,
		MemUsed: m.MemUsed, MemTotal: m.MemTotal, MemCache: m.MemCache, DiskUsed: m.DiskUsed, DiskTotal: m.DiskTotal,
	}
}

// metrics answers GET /sandboxes/{id}/metrics: deskrun keeps no series,
// so the answer is one sample read now, or none when now is outside
// start..end.
func (f *Front) metrics(c echo.Context) error {
	sess, err := f.session(c)
	if err != nil {
		return err
	}
	var bounds [2]int64
	for i, name := range []string{"start", "end"} {
		v := c.QueryParam(name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return invalid(fmt.Sprintf("%s: %q is not a Unix time in seconds", name, v))
		}
		bounds[i] = n
	}
	if bounds[1] != 0 && bounds[0] > bounds[1] {
		return invalid(fmt.Sprintf("start: %d is after end %d", bounds[0], bounds[1]))
	}
	out := []sandboxMetric{}
	if sess.Info().State == api.SessionPaused {
		return c.JSON(http.StatusOK, out) // nothing runs
	}
	if now := time.Now().Unix(); now >= bounds[0] && (bounds[1] == 0 || now <= bounds[1]) {
		m, err := f.readMetrics(c.Request().Context(), sess)
		if err != nil {
			return err
		}
		out = append(out, metricOf(m))
	}
	return c.JSON(http.StatusOK, out)
}

// metricsOf answers GET /sandboxes/metrics?sandbox_ids=a,b: each known
// running sandbox's sample now (unknown and paused ones are left out, as
// E2B leaves out sandboxes it has no metrics of).
func (f *Front) metricsOf(c echo.Context) error {
	var ids []string
	for _, v := range c.QueryParams()["sandbox_ids"] {
		for id := range strings.SplitSeq(v, ",") {
			if id != "" {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return invalid("sandbox_ids: required, the sandboxes to read (at most 100)")
	}
	if len(ids) > maxLimit {
		return invalid(fmt.Sprintf("sandbox_ids: %d sandboxes, at most %d", len(ids), maxLimit))
	}
	out := map[string]sandboxMetric{}
	for _, id := range ids {
		sess, err := f.m.Get(id)
		if err != nil || sess.Info().State == api.SessionPaused {
			continue
		}
		if m, err := f.readMetrics(c.Request().Context(), sess); err == nil {
			out[id] = metricOf(m)
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"sandboxes": out})
}
