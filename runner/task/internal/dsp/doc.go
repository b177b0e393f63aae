// Package dsp computes what OSWorld's compare_audios takes from librosa
// and fastdtw: the MFCC frames of a recording ([MFCC], librosa.feature.mfcc
// with librosa's defaults, each coefficient's track then divided by its
// largest magnitude as OSWorld does) and the dynamic-time-warping
// distance between two such sequences under cosine distance
// ([DTWCosine]).
//
// The features follow librosa's defaults: samples mono at 22050 Hz
// ([Rate]), a 2048-point periodic Hann STFT with hop 512, centred with
// zero padding, the power spectrum, 128 mel bands on the Slaney scale
// with area normalisation, dB with an 80 dB floor below the peak, an
// orthonormal DCT-II and 20 coefficients. The warping is exact where
// both sequences are short (fastdtw approximates it from above) and held
// to a band of a tenth of the longer sequence otherwise.
//
// It sits below the metrics (runner/task/metric), which decode the
// recordings and score the distance.
package dsp
