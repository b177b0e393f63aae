package agentd

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // decode the size of JPEG screenshots
	_ "image/png"  // and of PNG ones
)

// imageSize reads the size of an encoded image from its header.
func imageSize(b []byte) (int, int, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return 0, 0, fmt.Errorf("screenshot: %w", err)
	}
	return cfg.Width, cfg.Height, nil
}
