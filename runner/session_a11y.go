package runner

import (
	"context"
	"time"

	"github.com/deskrun/deskrun/api"
)

// AccessibilityXML returns the desktop's accessibility tree in OSWorld's
// XML.
func (s *Session) AccessibilityXML(ctx context.Context, app string) (string, error) {
	if err := s.live(); err != nil {
		return "", err
	}
	start := time.Now()
	x, err := s.client.AccessibilityXML(ctx, app)
	s.record(ctx, "accessibility", map[string]string{"format": "xml", "app": app}, nil, err, start, nil)
	return x, err
}

// Accessibility returns the tree as the indexed element list or as JSON.
func (s *Session) Accessibility(ctx context.Context, format, app string) (api.Accessibility, error) {
	if err := s.live(); err != nil {
		return api.Accessibility{}, err
	}
	start := time.Now()
	a, err := s.client.Accessibility(ctx, format, app)
	s.record(ctx, "accessibility", map[string]string{"format": format, "app": app}, nil, err, start, nil)
	return a, err
}

// SetOfMarks captures the screen with the interactable elements numbered.
func (s *Session) SetOfMarks(ctx context.Context, app string, maxWidth int) (api.SetOfMarks, error) {
	if err := s.live(); err != nil {
		return api.SetOfMarks{}, err
	}
	start := time.Now()
	m, err := s.client.SetOfMarks(ctx, app, maxWidth)
	s.record(ctx, "som", map[string]any{"app": app, "max_width": maxWidth}, nil, err, start, nil)
	return m, err
}

// ElementAction acts on an accessibility element by its id.
func (s *Session) ElementAction(ctx context.Context, a api.ElementAction) error {
	if err := s.live(); err != nil {
		return err
	}
	start := time.Now()
	err := s.client.ElementAction(ctx, a)
	s.record(ctx, "element_action", a, nil, err, start, nil)
	return err
}

// Apps lists the applications on the desktop's accessibility bus.
func (s *Session) Apps(ctx context.Context) ([]api.App, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	start := time.Now()
	apps, err := s.client.Apps(ctx)
	s.record(ctx, "accessibility_apps", nil, nil, err, start, nil)
	return apps, err
}
