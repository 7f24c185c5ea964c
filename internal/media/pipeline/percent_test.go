package pipeline

import (
	"math"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
)

// The percent of a run only rises — also while two lanes report in turn —
// and, once a tenth of the work is done, the time left is within 25 % of
// the time the run then takes, with the steps' real durations in their
// weights' proportions but the lanes after the proxy side by side, and the
// proxy's ffmpeg at half its speed for its first seconds (as it is: it
// starts its threads and fills its lookahead). A node that gets busier
// after an estimate makes it wrong, whatever the rule: not modelled.
func TestPercentAndTimeLeft(t *testing.T) {
	rows := rowsOf(media.KindVideo, false)
	clock := time.Unix(0, 0)
	type seen struct {
		at time.Time
		p  Progress
	}
	var reports []seen
	p := newPercent(rows, func(pr Progress) { reports = append(reports, seen{clock, pr}) })
	p.now = func() time.Time { return clock }
	byName := map[string]*Step{}
	for _, st := range rows {
		byName[st.Name] = st
	}
	const unit = 250 * time.Millisecond // a unit of weight's time at full speed
	p.finish(rows[0])                   // the probe

	// The proxy: half speed for its first second, then full speed.
	proxy := byName[StepProxy]
	for f := 0.0; f < 1; {
		speed := 1.0
		if clock.Sub(time.Unix(0, 0)) < time.Second {
			speed = 0.5
		}
		tick := 500 * time.Millisecond
		clock = clock.Add(tick)
		f = math.Min(1, f+speed*tick.Seconds()/(proxy.Weight*unit.Seconds()))
		p.report(proxy, f)
	}
	p.finish(proxy)
	// The two lanes after it, reporting in turn.
	lanes := [][]*Step{{byName["check"], byName["thumbnails"]}, {byName["audioProxies"], byName["strip"], byName["waveform"]}}
	frac := map[*Step]float64{}
	for busy := true; busy; {
		busy = false
		clock = clock.Add(100 * time.Millisecond)
		for _, lane := range lanes {
			for _, st := range lane {
				if frac[st] >= 1 {
					continue
				}
				busy = true
				if st.Weight == 0 {
					frac[st] = 1
				} else {
					frac[st] = math.Min(1, frac[st]+0.1/(st.Weight*unit.Seconds()))
				}
				p.report(st, frac[st])
				if frac[st] >= 1 {
					p.finish(st)
				}
				break
			}
		}
	}
	end := clock

	var worst float64
	for i, r := range reports {
		if i > 0 && r.p.Percent < reports[i-1].p.Percent {
			t.Fatalf("percent went back: %+v after %+v", r.p, reports[i-1].p)
		}
		left := end.Sub(r.at).Seconds()
		if r.p.Percent < 10 || left < 3 { // whole seconds: ±0.5 s is 25 % of 2 s
			continue
		}
		if r.p.ETASeconds == 0 {
			t.Fatalf("no time left said at %+v", r.p)
		}
		if e := math.Abs(r.p.ETASeconds-left) / left; e > worst {
			worst = e
			if e > 0.25 {
				t.Errorf("at %.1f s, %v %% done: %v s left said, %.1f s taken", r.at.Sub(time.Unix(0, 0)).Seconds(), r.p.Percent, r.p.ETASeconds, left)
			}
		}
	}
	t.Logf("%d reports over %v; the time left was off by at most %.0f %%", len(reports), end.Sub(time.Unix(0, 0)), worst*100)
}
