package pil

import "math"

// RGBToLab is scikit-image's rgb2lab (sRGB, D65, 2° observer) of one
// colour, its channels 0..1.
func RGBToLab(r, g, b float64) [3]float64 {
	lin := func(c float64) float64 {
		if c > 0.04045 {
			return math.Pow((c+0.055)/1.055, 2.4)
		}
		return c / 12.92
	}
	R, G, B := lin(r), lin(g), lin(b)
	x := (0.412453*R + 0.357580*G + 0.180423*B) / 0.95047
	y := (0.212671*R + 0.715160*G + 0.072169*B) / 1.0
	z := (0.019334*R + 0.119193*G + 0.950227*B) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	fx, fy, fz := f(x), f(y), f(z)
	L := 116*fy - 16
	if y <= 0.008856 {
		L = 903.3 * y
	}
	return [3]float64{L, 500 * (fx - fy), 200 * (fy - fz)}
}

// CIEDE2000 is scikit-image's deltaE_ciede2000 of two Lab colours
// (kL = kC = kH = 1).
func CIEDE2000(l1, l2 [3]float64) float64 {
	L1, a1, b1 := l1[0], l1[1], l1[2]
	L2, a2, b2 := l2[0], l2[1], l2[2]
	C1 := math.Hypot(a1, b1)
	C2 := math.Hypot(a2, b2)
	Cb := (C1 + C2) / 2
	G := 0.5 * (1 - math.Sqrt(math.Pow(Cb, 7)/(math.Pow(Cb, 7)+math.Pow(25, 7))))
	a1p, a2p := (1+G)*a1, (1+G)*a2
	C1p, C2p := math.Hypot(a1p, b1), math.Hypot(a2p, b2)
	hp := func(b, a float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		h := math.Atan2(b, a) * 180 / math.Pi
		if h < 0 {
			h += 360
		}
		return h
	}
	h1p, h2p := hp(b1, a1p), hp(b2, a2p)
	dLp := L2 - L1
	dCp := C2p - C1p
	var dhp float64
	switch {
	case C1p*C2p == 0:
		dhp = 0
	case math.Abs(h2p-h1p) <= 180:
		dhp = h2p - h1p
	case h2p-h1p > 180:
		dhp = h2p - h1p - 360
	default:
		dhp = h2p - h1p + 360
	}
	dHp := 2 * math.Sqrt(C1p*C2p) * math.Sin(dhp*math.Pi/360)
	Lbp := (L1 + L2) / 2
	Cbp := (C1p + C2p) / 2
	var hbp float64
	switch {
	case C1p*C2p == 0:
		hbp = h1p + h2p
	case math.Abs(h1p-h2p) <= 180:
		hbp = (h1p + h2p) / 2
	case h1p+h2p < 360:
		hbp = (h1p + h2p + 360) / 2
	default:
		hbp = (h1p + h2p - 360) / 2
	}
	rad := math.Pi / 180
	T := 1 - 0.17*math.Cos((hbp-30)*rad) + 0.24*math.Cos(2*hbp*rad) + 0.32*math.Cos((3*hbp+6)*rad) - 0.20*math.Cos((4*hbp-63)*rad)
	dTheta := 30 * math.Exp(-math.Pow((hbp-275)/25, 2))
	Rc := 2 * math.Sqrt(math.Pow(Cbp, 7)/(math.Pow(Cbp, 7)+math.Pow(25, 7)))
	Sl := 1 + 0.015*math.Pow(Lbp-50, 2)/math.Sqrt(20+math.Pow(Lbp-50, 2))
	Sc := 1 + 0.045*Cbp
	Sh := 1 + 0.015*Cbp*T
	Rt := -math.Sin(2*dTheta*rad) * Rc
	return math.Sqrt(math.Pow(dLp/Sl, 2) + math.Pow(dCp/Sc, 2) + math.Pow(dHp/Sh, 2) + Rt*(dCp/Sc)*(dHp/Sh))
}
