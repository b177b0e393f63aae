package runner

import (
	"context"
	"time"
)

// expireTimeout bounds the deletion of a session whose deadline passed.
const expireTimeout = 60 * time.Second

// deadline is a session's time to live: when it ends, and the timer that
// ends the session then. The session's mu guards it.
type deadline struct {
	at    time.Time   // zero: none
	timer *time.Timer // nil when at is zero
	// expire deletes the session; the Manager sets it at creation.
	expire func()
}

// Deadline is when the session's time to live ends and its Manager
// deletes it; zero when it has none.
func (s *Session) Deadline() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ttl.at
}

// SetDeadline makes the session end at t: its Manager deletes it then, as
// [Manager.Delete] does, with the reason "deadline". A t already past ends
// it at once (in the background); a zero t removes the deadline. It does
// nothing on a session that has ended.
func (s *Session) SetDeadline(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setDeadlineLocked(t)
}

// ExtendDeadline moves the session's deadline to t when t is later; a
// session without a deadline keeps none. It reports the deadline the
// session has afterwards.
func (s *Session) ExtendDeadline(t time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ttl.at.IsZero() && t.After(s.ttl.at) {
		s.setDeadlineLocked(t)
	}
	return s.ttl.at
}

func (s *Session) setDeadlineLocked(t time.Time) {
	if s.ended.Load() {
		return
	}
	if s.ttl.timer != nil {
		s.ttl.timer.Stop()
		s.ttl.timer = nil
	}
	s.ttl.at = t
	if t.IsZero() || s.ttl.expire == nil {
		return
	}
	s.ttl.timer = time.AfterFunc(time.Until(t), s.expireIfDue)
}

// expireIfDue ends the session if its deadline has come: a timer that
// fired while SetDeadline moved the deadline finds it later and does
// nothing.
func (s *Session) expireIfDue() {
	s.mu.Lock()
	at, expire := s.ttl.at, s.ttl.expire
	s.mu.Unlock()
	if at.IsZero() || time.Now().Before(at) {
		return
	}
	expire()
}

// stopDeadline stops the session's timer once it has ended.
func (s *Session) stopDeadline() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ttl.timer != nil {
		s.ttl.timer.Stop()
		s.ttl.timer = nil
	}
}

// watchDeadline gives s the Manager's reaper: past its deadline the
// session is removed and ended as Delete does; Close waits for the
// sessions being so ended.
func (m *Manager) watchDeadline(s *Session) {
	id := s.info.ID
	s.mu.Lock()
	s.ttl.expire = func() {
		m.mu.Lock()
		cur, ok := m.sessions[id]
		if !ok || cur != s { // deleted, or the Manager closed
			m.mu.Unlock()
			return
		}
		delete(m.sessions, id)
		m.expiring.Add(1)
		m.mu.Unlock()
		defer m.expiring.Done()
		ctx, cancel := context.WithTimeout(context.Background(), expireTimeout)
		defer cancel()
		if err := s.end(ctx, "deadline"); err != nil {
			s.log.Warn("session past its deadline: end", "err", err)
		}
	}
	s.mu.Unlock()
}
