//! Convex decomposition of a simple polygon: ear clipping, then Hertel–Mehlhorn merging.
//!
//! **Why Hertel–Mehlhorn and not Bayazit.** Both give few parts; HM has the proven bound (at
//! most 4× the optimal number of convex parts, O'Rourke, *Computational Geometry in C*, §2.5)
//! and, unlike Bayazit's, never adds Steiner points: every part vertex is an input vertex, bit
//! for bit, so parts meet exactly along their diagonals (no f32 gaps or overlaps from computed
//! intersection points) and the decomposition is deterministic. The 8-vertex cap of
//! [`Polygon`] fits in as one more condition on a merge.
//!
//! All predicates run in `f64` on the f32 input: a difference of two f32 is exact in f64 and a
//! product of two such differences rounds at most once, so orientation tests on the input are
//! as good as exact for any coordinates within [`MAX_SHAPE_SIZE`](super::MAX_SHAPE_SIZE).
//! The whole thing is O(n²) (ear search, the all-pairs self-intersection check).

use std::collections::HashMap;

use glam::{DVec2, Vec2};

use super::{Compound, MAX_COMPOUND_PARTS, MAX_POLYGON_VERTICES, Polygon, Pose, Shape, ShapeError};

/// Why a concave polygon could not be decomposed ([`Compound::from_concave_polygon`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecompositionError {
    /// Fewer than three vertices.
    TooFewVertices,
    /// A coordinate or the radius is NaN or infinite.
    NonFinite,
    /// The rounding radius is negative.
    NegativeRadius,
    /// Vertices `first < second` are equal.
    RepeatedVertex {
        /// Index of the first occurrence.
        first: usize,
        /// Index of the repeat.
        second: usize,
    },
    /// The polygon's signed area is zero (all vertices collinear, or a figure eight whose
    /// lobes cancel).
    ZeroArea,
    /// Edges `edge_a < edge_b` (edge `i` runs from vertex `i` to `i + 1`) cross, touch or
    /// overlap: the polygon is not simple.
    SelfIntersecting {
        /// The first edge.
        edge_a: usize,
        /// The second edge.
        edge_b: usize,
    },
    /// The decomposition needs more than [`MAX_COMPOUND_PARTS`] parts.
    TooManyParts {
        /// How many it needed.
        parts: usize,
    },
    /// A part was refused as a shape (too large, or a sliver thinner than f32 can represent);
    /// the input is valid but too extreme for f32.
    Part(ShapeError),
}

impl std::fmt::Display for DecompositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecompositionError::TooFewVertices => f.write_str("a polygon needs at least three vertices"),
            DecompositionError::NonFinite => f.write_str("polygon coordinate or radius is NaN or infinite"),
            DecompositionError::NegativeRadius => f.write_str("rounding radius must not be negative"),
            DecompositionError::RepeatedVertex { first, second } => {
                write!(f, "vertices {first} and {second} are equal")
            }
            DecompositionError::ZeroArea => f.write_str("polygon has zero area"),
            DecompositionError::SelfIntersecting { edge_a, edge_b } => {
                write!(f, "polygon is not simple: edges {edge_a} and {edge_b} intersect")
            }
            DecompositionError::TooManyParts { parts } => {
                write!(f, "decomposition needs {parts} parts, more than MAX_COMPOUND_PARTS ({MAX_COMPOUND_PARTS})")
            }
            DecompositionError::Part(e) => write!(f, "a convex part was refused: {e}"),
        }
    }
}

impl std::error::Error for DecompositionError {}

#[inline]
fn orient(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    (b - a).perp_dot(c - a)
}

/// Whether closed segments `p1 q1` and `p2 q2` share a point.
fn segments_intersect(p1: DVec2, q1: DVec2, p2: DVec2, q2: DVec2) -> bool {
    let (d1, d2) = (orient(p1, q1, p2), orient(p1, q1, q2));
    let (d3, d4) = (orient(p2, q2, p1), orient(p2, q2, q1));
    let on = |a: DVec2, b: DVec2, p: DVec2| {
        p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y)
    };
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)) {
        return true;
    }
    (d1 == 0.0 && on(p1, q1, p2))
        || (d2 == 0.0 && on(p1, q1, q2))
        || (d3 == 0.0 && on(p2, q2, p1))
        || (d4 == 0.0 && on(p2, q2, q1))
}

/// Checks the input; returns the vertices in f64, counter-clockwise.
fn validated(points: &[Vec2]) -> Result<Vec<DVec2>, DecompositionError> {
    let n = points.len();
    if n < 3 {
        return Err(DecompositionError::TooFewVertices);
    }
    if points.iter().any(|p| !p.is_finite()) {
        return Err(DecompositionError::NonFinite);
    }
    let v: Vec<DVec2> = points.iter().map(|p| p.as_dvec2()).collect();
    for i in 0..n {
        for j in i + 1..n {
            if v[i] == v[j] {
                return Err(DecompositionError::RepeatedVertex { first: i, second: j });
            }
        }
    }
    // Shoelace about vertex 0, for accuracy far from the origin.
    let area2: f64 = (1..n - 1).map(|i| (v[i] - v[0]).perp_dot(v[i + 1] - v[0])).sum();
    if area2 == 0.0 {
        return Err(DecompositionError::ZeroArea);
    }
    for i in 0..n {
        let (a, b) = (v[i], v[(i + 1) % n]);
        for j in i + 1..n {
            let (c, d) = (v[j], v[(j + 1) % n]);
            let adjacent = j == i + 1 || (i == 0 && j == n - 1);
            let bad = if adjacent {
                // Adjacent edges share a vertex; they only intersect elsewhere when they fold
                // back onto each other (a spike).
                let (s, x, y) = if j == i + 1 { (b, a, d) } else { (a, b, c) };
                orient(s, x, y) == 0.0 && (x - s).dot(y - s) > 0.0
            } else {
                segments_intersect(a, b, c, d)
            };
            if bad {
                return Err(DecompositionError::SelfIntersecting { edge_a: i, edge_b: j });
            }
        }
    }
    let mut v = v;
    if area2 < 0.0 {
        v.reverse();
    }
    // Straight-through vertices (exactly collinear with their neighbours; spikes were refused
    // above) change nothing about the region and would only make zero-area ears.
    let mut k = 0;
    while k < v.len() && v.len() > 3 {
        let m = v.len();
        if orient(v[(k + m - 1) % m], v[k], v[(k + 1) % m]) == 0.0 {
            v.remove(k);
            k = k.saturating_sub(1);
        } else {
            k += 1;
        }
    }
    Ok(v)
}

/// Ear clipping (Meisters' two-ears theorem; O(n²)): triangles as vertex index triples, CCW.
fn triangulate(v: &[DVec2]) -> Vec<[usize; 3]> {
    let n = v.len();
    let mut next: Vec<usize> = (0..n).map(|i| (i + 1) % n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| (i + n - 1) % n).collect();
    let mut tris = Vec::with_capacity(n - 2);
    let mut left = n;
    let mut cur = 0;
    let mut misses = 0;
    let convex = |p: usize, c: usize, nx: usize| orient(v[p], v[c], v[nx]) > 0.0;
    while left > 3 {
        let (p, nx) = (prev[cur], next[cur]);
        let mut ear = convex(p, cur, nx);
        if ear {
            // Only a reflex (or straight) vertex can lie in an ear's triangle; on its boundary
            // counts too, since the new diagonal p–nx would pass through it.
            let mut w = next[nx];
            while w != p {
                if !convex(prev[w], w, next[w])
                    && orient(v[p], v[cur], v[w]) >= 0.0
                    && orient(v[cur], v[nx], v[w]) >= 0.0
                    && orient(v[nx], v[p], v[w]) >= 0.0
                {
                    ear = false;
                    break;
                }
                w = next[w];
            }
        }
        // After a full lap without an ear (possible only through rounding on nearly degenerate
        // input), clip any convex vertex so that the loop always ends.
        if ear || (misses > left && convex(p, cur, nx)) || misses > 2 * left {
            tris.push([p, cur, nx]);
            next[p] = nx;
            prev[nx] = p;
            left -= 1;
            misses = 0;
            cur = nx;
        } else {
            misses += 1;
            cur = nx;
        }
    }
    tris.push([prev[cur], cur, next[cur]]);
    tris
}

/// Number of strictly convex vertices of a CCW loop (straight ones vanish in the hull).
fn corner_count(v: &[DVec2], piece: &[usize]) -> usize {
    let m = piece.len();
    (0..m).filter(|&i| orient(v[piece[(i + m - 1) % m]], v[piece[i]], v[piece[(i + 1) % m]]) > 0.0).count()
}

/// Hertel–Mehlhorn: drop each diagonal whose removal leaves a convex piece of at most
/// [`MAX_POLYGON_VERTICES`] corners. Returns the pieces as CCW vertex-index loops.
fn merge(v: &[DVec2], tris: &[[usize; 3]]) -> Vec<Vec<usize>> {
    let mut pieces: Vec<Vec<usize>> = tris.iter().map(|t| t.to_vec()).collect();
    let mut parent: Vec<usize> = (0..tris.len()).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    // Diagonals: edges shared by two triangles, in triangulation order (deterministic).
    let mut owner: HashMap<(usize, usize), usize> = HashMap::new();
    let mut diagonals = Vec::new();
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let key = (a.min(b), a.max(b));
            if let Some(&other) = owner.get(&key) {
                diagonals.push((key, other, t));
            } else {
                owner.insert(key, t);
            }
        }
    }
    for ((a, b), t1, t2) in diagonals {
        let (p, q) = (find(&mut parent, t1), find(&mut parent, t2));
        if p == q {
            continue;
        }
        let (pp, qq) = (&pieces[p], &pieces[q]);
        // P runs x → y along the diagonal, Q runs y → x (both CCW).
        let Some(k) = (0..pp.len()).find(|&k| {
            let (x, y) = (pp[k], pp[(k + 1) % pp.len()]);
            (x == a && y == b) || (x == b && y == a)
        }) else {
            continue;
        };
        let (x, y) = (pp[k], pp[(k + 1) % pp.len()]);
        let Some(m) = (0..qq.len()).find(|&m| qq[m] == y && qq[(m + 1) % qq.len()] == x) else { continue };
        // y, P…, x, then Q strictly between x and y.
        let mut merged: Vec<usize> = (0..pp.len()).map(|i| pp[(k + 1 + i) % pp.len()]).collect();
        merged.extend((2..qq.len()).map(|i| qq[(m + i) % qq.len()]));
        let l = merged.len();
        // Convex up to a relative 1e-6 turn: f32 input that was collinear before rounding (a
        // rotated comb) leaves corners reflex by ~1e-7, and refusing those would strand sliver
        // triangles. The part's hull then spans the vertex, bulging out by at most 1e-6 of an
        // edge length.
        let ok_at = |i: usize| {
            let (a, b, c) = (v[merged[(i + l - 1) % l]], v[merged[i]], v[merged[(i + 1) % l]]);
            orient(a, b, c) >= -1e-6 * (b - a).length() * (c - b).length()
        };
        if ok_at(0) && ok_at(pp.len() - 1) && corner_count(v, &merged) <= MAX_POLYGON_VERTICES {
            pieces[p] = merged;
            pieces[q].clear();
            parent[q] = p;
        }
    }
    pieces.retain(|p| !p.is_empty());
    pieces
}

impl Compound {
    /// Decomposes a simple polygon (any number of vertices, either winding, concave or
    /// convex) into convex parts of at most [`MAX_POLYGON_VERTICES`] vertices, each rounded by
    /// `radius` (the union of the rounded parts is the rounded polygon). Ear clipping, then
    /// Hertel–Mehlhorn merging of the diagonals while the merged part stays convex and within
    /// 8 vertices: at most `n - 2` parts, and without the 8-vertex cap at most 4× the optimal
    /// count. Every part vertex is an input vertex, so the parts tile the polygon exactly. The
    /// parts sit at the identity pose, in the input's coordinates.
    ///
    /// ```
    /// use sapwood::{Compound, DecompositionError, Vec2};
    /// // A comb with two teeth, clockwise: the winding does not matter.
    /// let comb: Vec<Vec2> = [(0.0, 0.0), (0.0, 3.0), (1.0, 3.0), (1.0, 1.0), (2.0, 1.0), (2.0, 3.0), (3.0, 3.0), (3.0, 0.0)]
    ///     .iter().map(|&(x, y)| Vec2::new(x, y)).collect();
    /// let c = Compound::from_concave_polygon(&comb, 0.0)?;
    /// assert_eq!(c.parts().len(), 3);
    /// let bowtie = [Vec2::ZERO, Vec2::new(1.0, 1.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, 2.0)];
    /// assert_eq!(
    ///     Compound::from_concave_polygon(&bowtie, 0.0),
    ///     Err(DecompositionError::SelfIntersecting { edge_a: 0, edge_b: 2 })
    /// );
    /// # Ok::<(), DecompositionError>(())
    /// ```
    ///
    /// # Errors
    /// [`DecompositionError::TooFewVertices`], [`DecompositionError::NonFinite`],
    /// [`DecompositionError::NegativeRadius`], [`DecompositionError::RepeatedVertex`],
    /// [`DecompositionError::ZeroArea`] and [`DecompositionError::SelfIntersecting`] for bad
    /// input (checked in that order; the indices refer to the input order);
    /// [`DecompositionError::TooManyParts`] beyond [`MAX_COMPOUND_PARTS`];
    /// [`DecompositionError::Part`] when a part is refused as a shape.
    pub fn from_concave_polygon(points: &[Vec2], radius: f32) -> Result<Compound, DecompositionError> {
        if points.len() < 3 {
            return Err(DecompositionError::TooFewVertices);
        }
        if !radius.is_finite() {
            return Err(DecompositionError::NonFinite);
        }
        if radius < 0.0 {
            return Err(DecompositionError::NegativeRadius);
        }
        let v = validated(points)?;
        let pieces = merge(&v, &triangulate(&v));
        if pieces.len() > MAX_COMPOUND_PARTS {
            return Err(DecompositionError::TooManyParts { parts: pieces.len() });
        }
        let mut parts = Vec::with_capacity(pieces.len());
        let mut buf = Vec::with_capacity(2 * MAX_POLYGON_VERTICES);
        for piece in &pieces {
            buf.clear();
            buf.extend(piece.iter().map(|&i| v[i].as_vec2()));
            match Polygon::hull(&buf, radius) {
                Ok(poly) => parts.push((Pose::IDENTITY, Shape::from(poly))),
                // A sliver below the hull's tolerance (its area is under ~1e-10 of its extent
                // squared) is not representable as a polygon; the other parts cover all but it.
                Err(ShapeError::Collinear | ShapeError::TooFewPoints) => {}
                Err(e) => return Err(DecompositionError::Part(e)),
            }
        }
        if parts.is_empty() {
            return Err(DecompositionError::ZeroArea);
        }
        Compound::new(parts).map_err(DecompositionError::Part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(xy: &[(f32, f32)]) -> Vec<Vec2> {
        xy.iter().map(|&(x, y)| Vec2::new(x, y)).collect()
    }

    #[test]
    fn convex_input_is_one_part() {
        let sq = pts(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]);
        assert_eq!(Compound::from_concave_polygon(&sq, 0.0).unwrap().parts().len(), 1);
        // A regular 12-gon needs two parts of at most 8 vertices.
        let ring: Vec<Vec2> = (0..12).map(|i| Vec2::from_angle(i as f32 * std::f32::consts::TAU / 12.0)).collect();
        assert_eq!(Compound::from_concave_polygon(&ring, 0.0).unwrap().parts().len(), 2);
    }

    #[test]
    fn straight_vertices_are_dropped() {
        // A square with a midpoint on every side is still one part of four vertices.
        let sq = pts(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (2.0, 1.0), (2.0, 2.0), (1.0, 2.0), (0.0, 2.0), (0.0, 1.0)]);
        let c = Compound::from_concave_polygon(&sq, 0.0).unwrap();
        assert_eq!(c.parts().len(), 1);
        let Shape::Polygon(p) = &c.parts()[0].1 else { panic!() };
        assert_eq!(p.count(), 4);
    }
}
