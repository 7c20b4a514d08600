//! Floating point constants as pnacl-bcdis prints them: C's `%g`.
//!
//! Six significant digits; fixed notation when the decimal exponent is in
//! `-4..6`, otherwise `d.ddddde±XX`; trailing zeros (and a trailing point)
//! removed; `nan`, `-nan`, `inf`, `-inf` for the special values.

use std::fmt::{self, Write};

/// Significant digits of `%g`.
const PRECISION: i32 = 6;

/// Writes `v` formatted like C's `printf("%g", v)`.
pub(crate) fn write_g(out: &mut impl Write, v: f64) -> fmt::Result {
    if v.is_nan() {
        return out.write_str(if v.is_sign_negative() { "-nan" } else { "nan" });
    }
    if v.is_infinite() {
        return out.write_str(if v < 0.0 { "-inf" } else { "inf" });
    }
    if v == 0.0 {
        return out.write_str(if v.is_sign_negative() { "-0" } else { "0" });
    }
    // The exponent of the value rounded to six significant digits decides
    // the notation (C11 7.21.6.1).
    let sci = format!("{:.*e}", (PRECISION - 1) as usize, v);
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent is a number");
    if !(-4..PRECISION).contains(&exp) {
        out.write_str(strip_zeros(mantissa))?;
        let sign = if exp < 0 { '-' } else { '+' };
        write!(out, "e{sign}{:02}", exp.abs())
    } else {
        let fixed = format!("{:.*}", (PRECISION - 1 - exp) as usize, v);
        out.write_str(strip_zeros(&fixed))
    }
}

/// Drops trailing zeros of a fraction, and the point if nothing follows it.
fn strip_zeros(s: &str) -> &str {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.')
}

#[cfg(test)]
mod tests {
    fn g(v: f64) -> String {
        let mut s = String::new();
        super::write_g(&mut s, v).unwrap();
        s
    }

    #[test]
    fn matches_c_printf_g() {
        assert_eq!(g(1.0), "1");
        assert_eq!(g(0.0), "0");
        assert_eq!(g(7.0), "7");
        assert_eq!(g(0.5), "0.5");
        assert_eq!(g(-2.25), "-2.25");
        assert_eq!(g(100000.0), "100000");
        assert_eq!(g(1000000.0), "1e+06");
        assert_eq!(g(1234567.0), "1.23457e+06");
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.00001), "1e-05");
        assert_eq!(g(3.14159265), "3.14159");
        assert_eq!(g(999999.5), "1e+06");
        assert_eq!(g(1e300), "1e+300");
        assert_eq!(g(f32::MAX as f64), "3.40282e+38");
        assert_eq!(g(0.1f32 as f64), "0.1");
        assert_eq!(g(f64::NAN), "nan");
        assert_eq!(g(-f64::NAN), "-nan");
        assert_eq!(g(f64::NEG_INFINITY), "-inf");
        assert_eq!(g(-0.0), "-0");
    }
}
