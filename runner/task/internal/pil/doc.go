// Package pil reproduces the parts of Pillow and scikit-image that
// OSWorld's image metrics call, so that the arrays a metric compares have
// the shape and values numpy sees and the scores come out as OSWorld's do.
//
// Images are decoded with the standard library (PNG, JPEG and GIF's first
// frame, as PIL opens it; JPEG by a child process of libjpeg-turbo's
// djpeg where it is installed, whose pixels are Pillow's, a process of a
// few milliseconds per image) and held as PIL holds them ([Image]: a mode and
// interleaved 8-bit channels; "L" and "P" are two-dimensional to numpy,
// "RGB" and "RGBA" have three or four channels). On them it follows:
//
//   - Pillow: Image.convert between "P", "L", "RGB", "RGBA" and "HSV"
//     (ITU-R 601-2 luma in Pillow's fixed point) and the LANCZOS
//     resampling filter; a left-right flip, the brightness (the mean of
//     the "L" conversion) and OSWorld's brightness normalisation;
//   - scikit-image: structural_similarity with its defaults ([SSIM]) and
//     color's rgb2lab and deltaE_ciede2000;
//   - numpy's standard deviation and OpenCV's default Laplacian, whose
//     variance OSWorld takes for sharpness;
//   - imagehash's phash of a 32x32 grey frame, which OSWorld's
//     compare_videos computes per frame.
//
// It sits below the metrics (runner/task/metric) and knows neither tasks
// nor OSWorld's options: a metric loads its images here and scores them.
package pil
