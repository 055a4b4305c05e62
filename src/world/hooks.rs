//! Pair hooks: user code that refuses candidate pairs and disables or edits contacts.
//!
//! The trait and the views it is given live here, with the world's calls that set the hooks and
//! ask the filter again; the step calls them from `step/broad.rs` (pair creation, via
//! `pairs.rs`) and `step/narrow.rs` (the contact hook). The semantics are on [`PairHooks`].

use std::sync::Arc;

use super::pairs::PairIndex;
use super::{World, WorldError};
use crate::collide::Manifold;
use crate::math::Pose;
use crate::shape::Shape;
use crate::storage::{ColliderId, ColliderSlot, Columns, flags};

/// One collider of a pair, as a hook sees it: `a` has the lower slot index, the manifold's
/// normal points from `a` to `b`, as in [`Contact`](crate::Contact).
#[derive(Clone, Copy, Debug)]
pub struct ColliderView<'a> {
    /// The collider.
    pub id: ColliderId,
    /// Its user data.
    pub user_data: u64,
    /// Its shape, in its local frame.
    pub shape: &'a Shape,
    /// Its pose now.
    pub pose: Pose,
    /// Whether it is static.
    pub is_static: bool,
    /// Whether it is a sensor.
    pub sensor: bool,
}

/// User callbacks deciding which pairs exist and what their contacts are.
///
/// Set on the world with [`World::set_pair_hooks`]; two callbacks, each with a default that
/// changes nothing:
///
/// - [`PairHooks::filter_pair`] decides whether a candidate pair exists at all, beyond the
///   [`Filter`](crate::Filter) bits and the static rule (rapier's `filter_contact_pair`,
///   Box2D v3's `b2CustomFilterFcn`). A refused pair never gets a manifold, a contact or an
///   event, sensor pairs included.
/// - [`PairHooks::modify_contact`] sees each touching non-sensor pair's manifold as it is
///   computed and may edit it or disable the contact (rapier's `modify_solver_contacts`,
///   Box2D v3's `b2PreSolveFcn`). One-way platforms are the classic use.
///
/// # When the filter is asked
/// The answer is stored in the pair and kept for its whole life, so that the filter costs
/// nothing per step and a pair's fate does not change behind the user's back. It is asked:
/// - when the pair begins: the step (or [`World::shift_origin`]) finds that the colliders'
///   fat boxes started to overlap, which happens before their shapes can touch;
/// - for every pair of a collider when [`World::refilter`] or [`World::set_shape`] is called
///   on it (Box2D v3 re-asks on a shape change too);
/// - for every pair when [`World::set_pair_hooks`] is called.
///
/// Those calls ask at once, and their effect on contacts and events comes at the next step,
/// like that of any edit: a touching pair refused then ends (`ContactEnded`/`SensorExited`),
/// a pair accepted again is evaluated and begins if its shapes touch. A pair that ends (its fat
/// boxes part) and begins again is asked again. So a filter should read what it is given (ids,
/// user data, shapes, flags) or state that changes only together with a `refilter` call; poses
/// change every step and are better judged by the contact hook.
///
/// # What a disabled contact means
/// A pair counts as touching when its shapes touch *and* the contact hook keeps the contact.
/// A disabled pair is not in [`World::contacts`]; it neither begins nor continues touching: a
/// touching pair the hook disables ends with `ContactEnded`, and begins again with
/// `ContactBegan` when the hook next keeps it. So events always describe how the contacts
/// array changed. The hook runs when the pair's manifold is recomputed: at each step in which
/// either collider moved or changed (the rule for every manifold); a pair of two unmoved
/// colliders keeps its last result, manifold as edited or disabled. [`World::refilter`] makes
/// a collider's pairs go through both hooks again at the next step.
///
/// # Determinism, threads and allocation
/// The filter runs serially, in an order fixed by the input. The contact hook runs inside the
/// parallel narrow phase, from several threads at once and in no fixed order, hence
/// `Send + Sync`; its result is applied serially in an order fixed by the input, so when both
/// hooks are pure
/// functions of their arguments (and of state that does not change during a step), the step's
/// output is bit-identical for any thread count. Calling them allocates nothing.
///
/// # Why the hooks live on the world
/// The filter's answers are world state, and the world asks for them outside of `step` too
/// (`refilter`, `set_shape`, `shift_origin`, [`World::rebuilt_with`], which shares the hooks
/// with the copy). Holding the hooks keeps one filter behind every stored answer, and keeps
/// `World::step` the one call it was, for the ECS integration and every other caller. An `Arc`
/// lets the copy share them and the user keep a handle to the hook's own state.
///
/// # Snapshots
/// Hooks are code, not state: a snapshot stores the filter's answers (they decide what the next
/// step does) but not the hooks. A restored world has none until set; pairs that begin before
/// then are accepted and contacts are left as computed. Set the hooks on the restored world
/// before its first step: every pair is asked again and re-evaluated, and with pure hooks the
/// restored world goes on exactly as the original.
///
/// # Example
/// A one-way platform: the contact with a platform (user data 1) is kept only while the other
/// collider rests on its top face, so a box coming from below passes through and one landing
/// from above is held. A collision world knows no velocities, so this rule judges by depth and
/// needs bodies to sink less than 0.1 per step; a game that has velocities can share them with
/// its hook (written between steps) and keep the contact only for a body not moving up, which
/// holds at any speed (`tests/world_hooks.rs` does).
///
/// ```
/// use std::sync::Arc;
/// use sapwood::collide::Manifold;
/// use sapwood::{ColliderDesc, ColliderView, PairHooks, Pose, Shape, Vec2, World};
///
/// struct OneWay;
/// impl PairHooks for OneWay {
///     fn modify_contact(&self, a: &ColliderView, b: &ColliderView, m: &mut Manifold) -> bool {
///         // The normal from the platform to the other collider.
///         let (platform, up) = match (a.user_data, b.user_data) {
///             (1, _) => (a, m.normal),
///             (_, 1) => (b, -m.normal),
///             _ => return true,
///         };
///         let top = platform.pose.q.y_axis();
///         // Keep it when the other is above and sank at most 0.1 below the top face.
///         up.dot(top) > 0.7 && m.points().iter().all(|p| p.depth <= 0.1)
///     }
/// }
///
/// let mut world = World::new();
/// world.set_pair_hooks(Some(Arc::new(OneWay)));
/// let platform = ColliderDesc::new(Shape::cuboid(Vec2::new(3.0, 0.25))?, Pose::IDENTITY).fixed();
/// world.insert(platform.with_user_data(1))?;
/// let body = world.insert(ColliderDesc::new(Shape::circle(0.5)?, Pose::from_translation(Vec2::new(0.0, 0.7))))?;
/// world.step();
/// assert_eq!(world.contacts().len(), 1); // resting on top: held
/// world.set_pose(body, Pose::from_translation(Vec2::new(0.0, -0.6)))?;
/// world.step();
/// assert!(world.contacts().is_empty()); // overlapping from below: passes through
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait PairHooks: Send + Sync {
    /// Whether the candidate pair `a`, `b` (their fat boxes overlap and their
    /// [`Filter`](crate::Filter)s allow it) may collide. `false` refuses it: no manifold, no
    /// contact, no events while it lasts. Called serially; the answer is kept until the pair
    /// ends or is asked again. Default: `true`.
    fn filter_pair(&self, a: &ColliderView<'_>, b: &ColliderView<'_>) -> bool {
        let _ = (a, b);
        true
    }

    /// Called with the manifold of a touching non-sensor pair (normal from `a` to `b`) each time
    /// it is computed, before it is written to [`World::contacts`]. May edit the normal, the
    /// points and lower `count` (a higher one is clamped to the two points there are).
    /// `false`, or a `count` of 0, disables the contact: the pair then does not touch. Called
    /// from several threads at once. Default: `true`, the manifold unchanged.
    ///
    /// The points' impulses are zero here and edits to them are ignored: after the hook, the
    /// step gives each point the impulses of the pair's previous point with the same feature id
    /// (edited ids included), or zero (see [`World::store_impulses`]).
    fn modify_contact(&self, a: &ColliderView<'_>, b: &ColliderView<'_>, manifold: &mut Manifold) -> bool {
        let _ = (a, b, manifold);
        true
    }
}

impl World {
    /// Sets the pair hooks (`None` removes them). Every existing pair is asked the new filter
    /// at once, and every pair is evaluated again, through the new contact hook, at the next
    /// step, as if every collider with a pair had moved: O(pairs) now and one full narrow
    /// phase then, so set hooks once, not every step.
    pub fn set_pair_hooks(&mut self, hooks: Option<Arc<dyn PairHooks>>) {
        self.hooks = hooks;
        for p in 0..self.pairs.len() {
            if !self.pairs[p].is_free() {
                self.refilter_pair(PairIndex::from_index(p));
            }
        }
        for s in 0..self.cols.alive.len() {
            if self.cols.alive[s] && !self.cols.pair_head[s].is_null() {
                self.mark_moved(s);
            }
        }
    }

    /// The pair hooks, if set.
    #[must_use]
    pub fn pair_hooks(&self) -> Option<&Arc<dyn PairHooks>> {
        self.hooks.as_ref()
    }

    /// Asks the pair filter again, at once, about every pair of `id`, and has the step
    /// re-evaluate them (the contact hook included) as if `id` had moved. Call it when
    /// something your hooks read, other than what the world hands them, changed for `id`.
    ///
    /// # Errors
    /// [`WorldError::StaleId`].
    pub fn refilter(&mut self, id: ColliderId) -> Result<(), WorldError> {
        let s = self.cols.slot(id).ok_or(WorldError::StaleId)?;
        self.refilter_collider(s);
        Ok(())
    }

    /// `refilter` of a live slot.
    pub(super) fn refilter_collider(&mut self, s: usize) {
        let slot = ColliderSlot::from_index(s);
        let mut p = self.cols.pair_head[s];
        while !p.is_null() {
            self.refilter_pair(p);
            let pair = &self.pairs[p.index()];
            p = pair.next[Self::end_of(pair, slot)];
        }
        self.mark_moved(s);
    }

    /// Asks the filter again about live pair `p`. A touching pair it now refuses keeps its
    /// contact until the next step's narrow phase ends it with its event (a pair refused and
    /// accepted again before then raises none); the caller marks an end moved so that it does.
    fn refilter_pair(&mut self, p: PairIndex) {
        let pair = self.pairs[p.index()];
        let refused = !self.filter_allows(pair.ids[0], pair.ids[1]);
        self.pairs[p.index()].refused = refused;
        self.refusals_pending |= refused && pair.touching;
    }

    /// The filter's answer for slots `a`, `b` (`true` without hooks).
    pub(super) fn filter_allows(&self, a: ColliderSlot, b: ColliderSlot) -> bool {
        self.hooks.as_deref().is_none_or(|h| h.filter_pair(&view(&self.cols, a), &view(&self.cols, b)))
    }
}

/// What the hooks see of the collider in slot `s`.
#[inline]
pub(super) fn view(cols: &Columns, s: ColliderSlot) -> ColliderView<'_> {
    let i = s.index();
    ColliderView {
        id: cols.id(s),
        user_data: cols.user_data[i],
        shape: &cols.shape[i],
        pose: cols.pose[i],
        is_static: cols.flags[i] & flags::STATIC != 0,
        sensor: cols.flags[i] & flags::SENSOR != 0,
    }
}

/// `m` (the touching manifold of non-sensor slots `a`, `b`) through the contact hook: edited,
/// or empty when disabled. The impulses are the step's to carry: the hook's edits to them are
/// dropped, so that a contact that begins starts at zero.
#[inline]
pub(super) fn modify(
    hooks: &dyn PairHooks,
    cols: &Columns,
    a: ColliderSlot,
    b: ColliderSlot,
    mut m: Manifold,
) -> Manifold {
    let keep = hooks.modify_contact(&view(cols, a), &view(cols, b), &mut m);
    m.count = m.count.min(m.points.len() as u32);
    m.carry_impulses(&Manifold::EMPTY);
    if keep && m.count > 0 { m } else { Manifold::EMPTY }
}
