package task

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/office"
)

// OSWorld's getters of media inside a slide of a presentation: the audio
// of a slide (audio_in_slide) and the picture of its background
// (background_image_in_slide). Each fetches the .pptx from the sandbox,
// finds the slide's relationship to the media and answers a host path:
// media embedded in the package is extracted into the cache beside the
// fetched presentation (at its path inside the package, as OSWorld does),
// media linked by a file:// URL is fetched from the sandbox into dest.
// Answers None when the presentation, the slide or the media is missing.
func checkSlideMediaGetter(f fields) error {
	p, err := f.str("ppt_file_path", true)
	if err == nil && p == "" {
		err = fmt.Errorf("%s: must not be empty", f.name("ppt_file_path"))
	}
	if err != nil {
		return err
	}
	if _, err := slideIndex(f.m["slide_index"]); err != nil {
		return fmt.Errorf("%s: %w", f.name("slide_index"), err)
	}
	return checkDestGetter(f)
}

// slideIndex reads slide_index as Python's int() would: an integer or a
// string of one.
func slideIndex(v any) (int, error) {
	n, ok := py.AsInt(v)
	if !ok || n < 0 {
		return 0, fmt.Errorf("want a slide index (0 for the first slide), got %v", v)
	}
	return n, nil
}

// audioInSlide implements OSWorld's audio_in_slide
// (desktop_env/evaluators/getters/impress.py).
func (r *run) audioInSlide(ctx context.Context, p map[string]any) (any, error) {
	return r.slideMedia(ctx, p, func(pk *office.Package, slide string) (office.Rel, bool) {
		rels, _ := pk.Rels(slide)
		for _, rel := range rels {
			if strings.Contains(rel.Type, "audio") {
				return rel, true
			}
		}
		return office.Rel{}, false
	})
}

// backgroundImageInSlide implements OSWorld's background_image_in_slide
// (desktop_env/evaluators/getters/impress.py).
func (r *run) backgroundImageInSlide(ctx context.Context, p map[string]any) (any, error) {
	return r.slideMedia(ctx, p, func(pk *office.Package, slide string) (office.Rel, bool) {
		root, err := pk.XML(slide)
		if err != nil {
			return office.Rel{}, false
		}
		id := ""
		for _, bg := range root.Find("bgPr") {
			for _, blip := range bg.Find("blip") {
				if id, _ = blip.Attribute("embed"); id != "" {
					break
				}
			}
			if id != "" {
				break
			}
		}
		if id == "" {
			return office.Rel{}, false
		}
		rels, _ := pk.Rels(slide)
		for _, rel := range rels {
			if strings.Contains(rel.Type, "image") && rel.ID == id {
				return rel, true
			}
		}
		return office.Rel{}, false
	})
}

// slideMedia fetches the presentation, picks the slide's media with pick
// and answers its host path, or None.
func (r *run) slideMedia(ctx context.Context, p map[string]any, pick func(*office.Package, string) (office.Rel, bool)) (any, error) {
	src, _ := p["ppt_file_path"].(string)
	idx, err := slideIndex(p["slide_index"])
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage("slide_index: " + err.Error())
	}
	dest, _ := p["dest"].(string)
	src, err = r.expandUser(ctx, src)
	if err != nil {
		return nil, err
	}
	data, err := r.sb.ReadFile(ctx, src)
	if errdefs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", src, err)
	}
	local := path.Base(src)
	if err := r.writeCache(local, data); err != nil {
		return nil, err
	}
	pk, err := office.OpenBytes(data)
	if err != nil {
		return nil, nil // not a presentation: the metric scores 0
	}
	slide := fmt.Sprintf("ppt/slides/slide%d.xml", idx+1)
	if !pk.Has(slide) {
		return nil, nil
	}
	rel, ok := pick(pk, slide)
	if !ok {
		return nil, nil
	}
	if !rel.External {
		media, err := pk.Read(rel.Target)
		if err != nil {
			return nil, nil
		}
		name := filepath.FromSlash(rel.Target)
		if err := checkCacheName(rel.Target); err != nil {
			return nil, nil
		}
		if err := r.writeCache(rel.Target, media); err != nil {
			return nil, err
		}
		return filepath.Join(r.cacheDir, name), nil
	}
	linked, ok := strings.CutPrefix(rel.Target, "file://")
	if !ok {
		return nil, nil // OSWorld asserts a file:// link
	}
	return r.vmFile(ctx, map[string]any{"path": linked, "dest": dest})
}
