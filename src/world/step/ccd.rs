//! Phase (d): continuous collision, each moved bullet's earliest time of impact along its sweep.
//!
//! A bullet ([`ColliderDesc::bullet`](crate::ColliderDesc::bullet)) is swept from its pose at
//! the step before (`sweep_start`) to its pose now. Phase (a) gave it a fat box covering that
//! sweep, so phase (b) made a candidate pair with every collider the sweep can reach; this phase
//! runs a time-of-impact query over those pairs and keeps each bullet's earliest impact.
//!
//! The other collider of a pair is held still at its current pose, as Box2D v3 holds the
//! non-bullet bodies at their final poses: the step knows where a collider is, not where it
//! was, unless it is a bullet. Two bullets are both swept. Pairs already touching at the start
//! of the sweep are left to the contacts, which report them (see `counts` for pairs apart but
//! within the query's tolerance). Sensor pairs are skipped (a sensor does not stop anything),
//! and so are pairs the pair filter refused (`PairHooks::filter_pair`).

use crate::math::{Aabb, Pose};
use crate::par::prelude::*;
use crate::query::{self, Sweep, ToiState};
use crate::shape::Shape;
use crate::storage::{ColliderSlot, Columns, flags};
use crate::world::pairs::PairEntry;
use crate::world::weld::Welds;
use crate::world::{Impact, World};

/// A box covering `shape` swept from `start` to `end` (the union of its tight boxes at both
/// poses; `tight_end` is the one at `end`). For a pure translation that union is exactly the
/// box of the swept area. A rotating shape can bulge out of it between the poses (a bar turning
/// a quarter turn sweeps its tip through the diagonal), so then the box also covers the disc of
/// the shape's reach around every point of the origin's path. The box is grown by more than the
/// tolerance of [`query::time_of_impact`] (1e-4 of the smaller shape's size, at most its reach,
/// plus f32 rounding of the coordinates), within which it reports a hit, so that every pair it
/// can report is a candidate pair.
pub(super) fn sweep_box(shape: &Shape, start: &Pose, end: &Pose, tight_end: Aabb) -> Aabb {
    let reach = shape.bounding_radius();
    let mut b = tight_end.union(&shape.aabb(start));
    if start.q != end.q {
        b = b.union(&Aabb::from_points(start.p, end.p).fattened(reach));
    }
    let magnitude = b.min.abs().max(b.max.abs()).max_element();
    b.fattened(2e-4 * reach + 1e-5 * magnitude)
}

/// Rounds of [`World::time_of_impact`]: each is a full search of the time-of-impact query, and
/// a sweep that needs more than one is already rare.
const RESUMES: usize = 4;

impl World {
    /// (d) The earliest impact of every bullet that moved, in parallel over the bullets, then
    /// each moved bullet's sweep start set to its pose for the next step.
    ///
    /// Each worker reads the columns and pairs and writes only its own bullet's result; the
    /// results are gathered in bullet slot order, so [`World::impacts`] is the same for any
    /// thread count.
    pub(super) fn continuous_collision(&mut self) {
        let scratch = &mut self.scratch;
        scratch.bullets.clear();
        self.impacts.clear();
        // A world without bullets pays nothing here, not even a pass over the moved list.
        if self.cols.bullet_count == 0 {
            return;
        }
        // `moved` is sorted by slot and free of dead slots after phase (a).
        let cols = &self.cols;
        scratch.bullets.extend(self.moved.iter().copied().filter(|&s| cols.flags[s.index()] & flags::BULLET != 0));
        let (pairs, welds) = (&self.pairs, &self.welds);
        scratch
            .bullets
            .par_iter()
            .map(|&b| Self::earliest_impact(cols, welds, pairs, b))
            .collect_into_vec(&mut scratch.bullet_impacts);
        self.impacts.extend(scratch.bullet_impacts.iter().flatten());
        for &b in &scratch.bullets {
            self.cols.sweep_start[b.index()] = self.cols.pose[b.index()];
        }
    }

    /// Whether a time-of-impact answer is an impact to report. Shapes touching at the start
    /// (`Overlapping`) are the contacts' business: the step reports them as touching. Shapes
    /// apart but within the query's tolerance at the start (`Hit` at fraction 0) are not
    /// touching, so no contact reports them: they are an impact when the sweep closes the gap
    /// (the relative displacement goes along the normal, from the bullet towards the other),
    /// and not when it opens it, or a bullet leaving a surface it has just been stopped
    /// against would be stopped there again at every step.
    fn counts(toi: &query::Toi, bullet: &Sweep, other: &Sweep) -> bool {
        match toi.state {
            ToiState::Hit if toi.fraction > 0.0 => true,
            ToiState::Hit => {
                let closing = (bullet.end.p - bullet.start.p) - (other.end.p - other.start.p);
                closing.dot(toi.normal) > 0.0
            }
            _ => false,
        }
    }

    /// [`query::time_of_impact`] resumed from its safe fraction while it ends in
    /// [`ToiState::IterationLimit`], for a few rounds: a search that ran out of steps has not
    /// found a contact, only cleared the sweep up to there, so reporting one would be a phantom
    /// impact and dropping the pair could let the bullet tunnel. Each round starts a fresh
    /// search on the rest of both sweeps; the fraction is mapped back onto the whole sweep. A
    /// pair still undecided after the last round gives no impact (the contacts at the end pose
    /// still see an overlap there).
    fn time_of_impact(
        shape: &Shape,
        sweep: &Sweep,
        other_shape: &Shape,
        other: &Sweep,
        max_fraction: f32,
    ) -> Result<query::Toi, query::QueryError> {
        let rest = |s: &Sweep, from: f32| if from == 0.0 { *s } else { Sweep::new(s.at(from), s.end) };
        let mut from = 0.0f32;
        let mut toi = query::time_of_impact(shape, sweep, other_shape, other, max_fraction)?;
        for _ in 1..RESUMES {
            if toi.state != ToiState::IterationLimit || toi.fraction <= 0.0 {
                break;
            }
            from += (1.0 - from) * toi.fraction;
            let span = 1.0 - from;
            let max = if span > 0.0 { ((max_fraction - from) / span).clamp(0.0, 1.0) } else { 0.0 };
            toi = query::time_of_impact(shape, &rest(sweep, from), other_shape, &rest(other, from), max)?;
            toi.fraction = (from + span * toi.fraction).min(max_fraction);
        }
        Ok(toi)
    }

    /// The sweep of slot `s` over the step: from its sweep start for a bullet, else still at
    /// its pose.
    fn sweep_of(cols: &Columns, s: usize) -> Sweep {
        let end = cols.pose[s];
        let start = if cols.flags[s] & flags::BULLET != 0 { cols.sweep_start[s] } else { end };
        Sweep { start, end }
    }

    /// Bullet `b`'s earliest impact over its non-sensor pairs, ties to the smaller slot of the
    /// other collider (the pair list's order depends on history, the result must not).
    fn earliest_impact(cols: &Columns, welds: &Welds, pairs: &[PairEntry], b: ColliderSlot) -> Option<Impact> {
        let s = b.index();
        let sweep = Self::sweep_of(cols, s);
        if sweep.start == sweep.end {
            return None;
        }
        let shape = &cols.shape[s];
        let reach = sweep_box(shape, &sweep.start, &sweep.end, cols.aabb[s]);
        let mut best: Option<(f32, ColliderSlot, query::Toi)> = None;
        let mut p = cols.pair_head[s];
        while !p.is_null() {
            let pair = &pairs[p.index()];
            let end = Self::end_of(pair, b);
            p = pair.next[end];
            let other = pair.ids[1 - end];
            let o = other.index();
            if pair.sensor || pair.refused {
                continue;
            }
            let other_sweep = Self::sweep_of(cols, o);
            let other_reach = if other_sweep.start == other_sweep.end {
                cols.aabb[o]
            } else {
                sweep_box(&cols.shape[o], &other_sweep.start, &other_sweep.end, cols.aabb[o])
            };
            // The fat boxes overlap; the swept tight boxes rule out most pairs more cheaply
            // than a time-of-impact query (rounding slack: the query works in the shapes' frames).
            if !reach.with_rounding_slack().overlaps(&other_reach.with_rounding_slack()) {
                continue;
            }
            let max_fraction = best.map_or(1.0, |(t, _, _)| t);
            // The poses and shapes are the world's own (checked on the way in), so the query
            // cannot refuse them; a refusal would mean no impact rather than a wrong one.
            let Ok(toi) = Self::time_of_impact(shape, &sweep, &cols.shape[o], &other_sweep, max_fraction) else {
                continue;
            };
            if !Self::counts(&toi, &sweep, &other_sweep) {
                continue;
            }
            if best.is_none_or(|(t, bo, _)| toi.fraction < t || (toi.fraction == t && other < bo)) {
                best = Some((toi.fraction, other, toi));
            }
        }
        best.map(|(fraction, other, toi)| Impact {
            bullet: cols.id(b),
            other: cols.id(other),
            fraction,
            point: toi.point,
            // A welded static's seams have no normal of their own (see `World::cast_shape`).
            normal: -welds.hit_normal(cols, other.index(), toi.point, -toi.normal),
            pose: sweep.at(fraction),
        })
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::math::Pose;
    use crate::shape::Shape;
    use crate::world::{ColliderDesc, World};

    #[test]
    fn the_sweep_start_is_state() {
        let make = || {
            let mut w = World::new();
            let id = w.insert(ColliderDesc::new(Shape::circle(0.5).unwrap(), Pose::IDENTITY).bullet()).unwrap();
            w.step();
            w.set_pose(id, Pose::from_translation(Vec2::new(3.0, 0.0))).unwrap();
            (w, id.index() as usize)
        };
        let (a, _) = make();
        let (mut b, s) = make();
        assert_eq!(a.state_hash(), b.state_hash());
        b.cols.sweep_start[s].p.y = 1.0;
        assert_ne!(a.state_hash(), b.state_hash(), "a bullet's sweep start is hashed");
        let restored = World::from_bytes(&b.to_bytes()).unwrap();
        assert_eq!(restored.cols.sweep_start[s], b.cols.sweep_start[s], "and stored");
    }

    #[test]
    fn an_iteration_limit_is_no_impact() {
        let bullet = crate::query::Sweep::new(Pose::IDENTITY, Pose::from_translation(Vec2::X));
        let still = crate::query::Sweep::fixed(Pose::from_translation(Vec2::new(2.0, 0.0)));
        let toi = |state| crate::query::Toi {
            state,
            fraction: 0.5,
            point: Vec2::ZERO,
            normal: Vec2::X,
            part_a: 0,
            part_b: 0,
        };
        assert!(World::counts(&toi(crate::query::ToiState::Hit), &bullet, &still));
        assert!(!World::counts(&toi(crate::query::ToiState::IterationLimit), &bullet, &still));
    }

    #[test]
    fn a_rotating_sweep_box_covers_every_intermediate_pose() {
        // A bar turning almost half a turn while moving: flat at both ends, upright midway.
        let bar = Shape::cuboid(Vec2::new(2.0, 0.05)).unwrap();
        let (start, end) = (Pose::new(Vec2::ZERO, 0.0), Pose::new(Vec2::new(1.0, 0.5), 3.0));
        let b = super::sweep_box(&bar, &start, &end, bar.aabb(&end));
        for k in 0..=64 {
            let t = k as f32 / 64.0;
            let at = Pose::new(start.p.lerp(end.p, t), 3.0 * t);
            assert!(b.contains(&bar.aabb(&at)), "t = {t}");
        }
        let ends = bar.aabb(&start).union(&bar.aabb(&end));
        assert!(!ends.contains(&bar.aabb(&Pose::new(start.p.lerp(end.p, 0.5), 1.5))), "the ends alone miss it");
    }
}
