package agentd

import (
	"bytes"
	"image"
	_ "image/jpeg"
)

// imageSize reads the size of an encoded image from its header.
func imageSize(b []byte) (int, int, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	return cfg.Width, cfg.Height, err
}
