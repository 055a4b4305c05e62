//! sapwood's own sine, cosine and arctangent: the same bits on every platform.
//!
//! `f32::sin_cos` and `f32::atan2` call the platform's maths library, whose last bits differ
//! between platforms and versions (Box2D v3 computes its own cosine and sine for this reason).
//! These use only `+ - * /`, `round` and comparisons in `f64`, each of which IEEE 754 defines to
//! the bit, and Rust never fuses them into FMAs on its own: every target computes the same
//! result. Working in `f64` makes the rounding to `f32` at the end the only visible error: within
//! one ulp of the correctly rounded value (tested against the standard library).
//!
//! The step, the queries and the character mover use these and nothing from the maths library
//! (`tests/no_libm.rs` keeps it so).

use std::f64::consts::{FRAC_PI_2, FRAC_PI_6, PI};

/// The sine and cosine of `angle` radians. Accurate for any angle whose reduction by `pi / 2`
/// is exact enough in `f64` (up to about 1e9 radians); beyond that still deterministic.
#[must_use]
pub fn sin_cos(angle: f32) -> (f32, f32) {
    let (s, c) = sin_cos_f64(f64::from(angle));
    (s as f32, c as f32)
}

/// [`sin_cos`] in `f64` (accurate to a few ulps of `f64`), for the `f64` computations
/// (mass properties).
#[must_use]
pub fn sin_cos_f64(x: f64) -> (f64, f64) {
    if !x.is_finite() {
        return (f64::NAN, f64::NAN);
    }
    // x = k·pi/2 + r with |r| <= pi/4, pi/2 split in two parts so that k·pi/2 is exact to well
    // past f32's precision for |k| < 2^26.
    let k = (x * (2.0 / PI)).round();
    const PI_2_HI: f64 = 1.570_796_326_734_125_6; // pi/2 with its low 27 bits cleared
    const PI_2_LO: f64 = FRAC_PI_2 - PI_2_HI;
    let r = (x - k * PI_2_HI) - k * PI_2_LO;
    let (s, c) = (sin_poly(r), cos_poly(r));
    match (k as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// `sin r` for `|r| <= pi/4`: its Taylor series to the `r^17` term (the next term is below
/// 1e-19 there), by Horner's rule from the highest term.
#[inline]
fn sin_poly(r: f64) -> f64 {
    let r2 = r * r;
    r + r * SIN.iter().rev().fold(0.0, |p, c| (p + c) * r2)
}

/// `cos r` for `|r| <= pi/4`, to the `r^18` term.
#[inline]
fn cos_poly(r: f64) -> f64 {
    let r2 = r * r;
    1.0 + COS.iter().rev().fold(0.0, |p, c| (p + c) * r2)
}

/// The Taylor coefficients of `sin` for `r^3, r^5, …, r^17`: `(-1)^k / (2k+1)!`.
const SIN: [f64; 8] = coefficients(1);
/// Those of `cos` for `r^2, r^4, …, r^18`: `(-1)^k / (2k)!`.
const COS: [f64; 9] = coefficients(0);

/// `(-1)^k / (2k + odd)!` for `k = 1..=N`, at compile time.
const fn coefficients<const N: usize>(odd: u32) -> [f64; N] {
    let mut c = [0.0; N];
    let mut k = 1;
    while k <= N {
        c[k - 1] = sign(k as u32) / factorial(2 * k as u32 + odd);
        k += 1;
    }
    c
}

/// `(-1)^k`.
#[inline]
const fn sign(k: u32) -> f64 {
    if k & 1 == 0 { 1.0 } else { -1.0 }
}

/// `n!` as an `f64` (exact up to 18!, and the Taylor coefficients only need it to within an
/// ulp beyond).
#[inline]
const fn factorial(n: u32) -> f64 {
    let mut f = 1.0;
    let mut i = 2;
    while i <= n {
        f *= i as f64;
        i += 1;
    }
    f
}

/// The angle of `(x, y)` from the positive x axis, in `[-pi, pi]`, as `f32::atan2` defines it
/// (signed zeros included); NaN for a NaN input.
#[must_use]
pub fn atan2(y: f32, x: f32) -> f32 {
    atan2_f64(f64::from(y), f64::from(x)) as f32
}

/// [`atan2`] in `f64` (accurate to a few ulps of `f64`).
#[must_use]
pub fn atan2_f64(y: f64, x: f64) -> f64 {
    if y.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    let (ay, ax) = (y.abs(), x.abs());
    // The angle in [0, pi/2] of (|x|, |y|), from the smaller over the larger ratio.
    let a = if ay == 0.0 && ax == 0.0 {
        0.0
    } else if ay.is_infinite() || ax.is_infinite() {
        match (ay.is_infinite(), ax.is_infinite()) {
            (true, true) => PI / 4.0,
            (true, false) => FRAC_PI_2,
            _ => 0.0,
        }
    } else if ay <= ax {
        atan_unit(ay / ax)
    } else {
        FRAC_PI_2 - atan_unit(ax / ay)
    };
    // Into the quadrant of (x, y); the sign of y (a zero's too) is the result's.
    let a = if x.is_sign_negative() { PI - a } else { a };
    if y.is_sign_negative() { -a } else { a }
}

/// `atan t` for `0 <= t <= 1`: `atan t = pi/6 + atan u` with `u = (t - 1/√3) / (1 + t/√3)`
/// brings the argument within `tan(pi/12) ≈ 0.268` of zero, where the Taylor series to `u^31`
/// is exact to below 1e-17.
#[inline]
fn atan_unit(t: f64) -> f64 {
    const TAN_PI_12: f64 = 0.267_949_192_431_122_7;
    const INV_SQRT3: f64 = 0.577_350_269_189_625_8;
    let (base, u) = if t > TAN_PI_12 { (FRAC_PI_6, (t - INV_SQRT3) / (1.0 + t * INV_SQRT3)) } else { (0.0, t) };
    let u2 = u * u;
    base + (u + u * ATAN.iter().rev().fold(0.0, |p, c| (p + c) * u2))
}

/// The Taylor coefficients of `atan` for `u^3, u^5, …, u^31`: `(-1)^k / (2k+1)`.
const ATAN: [f64; 15] = {
    let mut c = [0.0; 15];
    let mut k = 1;
    while k <= 15 {
        c[k - 1] = sign(k as u32) / (2 * k + 1) as f64;
        k += 1;
    }
    c
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internal::SplitMix64;

    /// Ulps between two finite f32 of the same sign (or both tiny).
    fn ulps(a: f32, b: f32) -> u32 {
        if a == b {
            return 0;
        }
        if a.signum() != b.signum() {
            // Around zero: count through it.
            return (a.to_bits() & 0x7fff_ffff) + (b.to_bits() & 0x7fff_ffff);
        }
        a.to_bits().abs_diff(b.to_bits())
    }

    /// Within one ulp of the correctly rounded value (the standard library's f64 result,
    /// rounded), or within 2^-30 absolutely where the value is near zero (an angle near a
    /// multiple of pi, whose f32 argument carries no more than that).
    fn close(ours: f32, exact: f64) -> bool {
        ulps(ours, exact as f32) <= 1 || (f64::from(ours) - exact).abs() <= 1e-9
    }

    #[test]
    fn sine_and_cosine_agree_with_the_standard_library() {
        let mut rng = SplitMix64::new(0x5eed_7719);
        let mut angles: Vec<f32> = (0..200_000).map(|_| rng.range(-10.0, 10.0)).collect();
        angles.extend((0..50_000).map(|_| rng.range(-1e5, 1e5)));
        angles.extend((0..10_000).map(|_| rng.range(-1e-3, 1e-3)));
        angles.extend([
            0.0,
            -0.0,
            1e-30,
            f32::MIN_POSITIVE,
            0.5,
            1.0,
            std::f32::consts::PI,
            -std::f32::consts::PI,
            std::f32::consts::FRAC_PI_2,
            1e6,
        ]);
        for &a in &angles {
            let (s, c) = sin_cos(a);
            let (es, ec) = f64::from(a).sin_cos();
            assert!(close(s, es) && close(c, ec), "{a}: ({s}, {c}) vs ({es}, {ec})");
            // A rotation's components: unit length within f32 rounding.
            assert!((f64::from(s).hypot(f64::from(c)) - 1.0).abs() < 2e-7, "{a}");
        }
        assert!(sin_cos(f32::NAN).0.is_nan() && sin_cos(f32::INFINITY).1.is_nan());
    }

    #[test]
    fn arctangent_agrees_with_the_standard_library() {
        let mut rng = SplitMix64::new(0x5eed_7720);
        for i in 0..300_000 {
            let scale = [1.0, 1e-20, 1e20, 1e-3][i % 4];
            let (y, x) = (rng.range(-1.0, 1.0) * scale, rng.range(-1.0, 1.0) * scale);
            let exact = f64::from(y).atan2(f64::from(x));
            assert!(close(atan2(y, x), exact), "atan2({y}, {x}) = {} vs {exact}", atan2(y, x));
        }
        // Axes, signed zeros and infinities, as f32::atan2.
        let specials = [0.0, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE, f32::MAX];
        for &y in &specials {
            for &x in &specials {
                let (ours, std) = (atan2(y, x), y.atan2(x));
                assert!(ours.to_bits() == std.to_bits() || ulps(ours, std) <= 1, "atan2({y}, {x}): {ours} vs {std}");
            }
        }
        assert!(atan2(f32::NAN, 1.0).is_nan() && atan2(1.0, f32::NAN).is_nan());
    }
}
