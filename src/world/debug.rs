//! Debugging aids: the world's `Debug` summary, and its debug drawing (`World::debug_draw`, the
//! primitives and roles in `crate::debug_draw`). Nothing here is needed to use the world; it
//! exists so that a game can show what the world and its broad phase see without the world
//! exposing its structures.

use std::fmt;

use glam::Vec2;

use super::World;
use crate::debug_draw::{ColliderStyle, DebugDraw, DebugDrawOptions, Role, draw_shape};
use crate::math::Aabb;
use crate::storage::{ColliderId, ColliderSlot, flags};

/// Counts and the config, not the columns: a world's arrays run to megabytes.
impl fmt::Debug for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("World")
            .field("colliders", &self.len())
            .field("bullets", &self.cols.bullet_count)
            .field("pairs", &(self.pairs.len() - self.free_pairs.len()))
            .field("contacts", &self.contacts.len())
            .field("events", &self.events.len())
            .field("impacts", &self.impacts.len())
            .field("pair_hooks", &self.hooks.is_some())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl World {
    /// Calls `f` with every live collider's fat box (the box the broad phase stores, as of the
    /// last [`World::step`]) and whether the collider lives in the static/large-collider tree
    /// (`true`) or in the movers' broad phase (`false`). Colliders inserted since the last step
    /// are not in any structure yet and are skipped. Slot order.
    #[doc(hidden)]
    pub fn debug_fat_aabbs(&self, mut f: impl FnMut(ColliderId, Aabb, bool)) {
        for s in 0..self.cols.alive.len() {
            if self.cols.is_placed(s) {
                let id = self.cols.id(ColliderSlot::from_index(s));
                f(id, self.cols.fat[s], self.cols.flags[s] & flags::IN_TREE != 0);
            }
        }
    }

    /// Draws the world on `out` (see [`debug_draw`](crate::debug_draw)), in this order, each
    /// part as `options` asks: the static tree's nodes by depth, the colliders (slot order,
    /// compounds as their parts, at their present poses), tight boxes, fat boxes, the last
    /// step's contacts (point, normal, depth) and its impacts (point, normal, the bullet's pose
    /// then). Later parts land on top. Reads the world only; allocates only for chains (their
    /// vertices, placed in the world).
    pub fn debug_draw(&self, out: &mut impl DebugDraw, options: &DebugDrawOptions) {
        let seen = |b: &Aabb| options.bounds.is_none_or(|v| v.overlaps(b));
        let corners = |b: &Aabb| [b.min, Vec2::new(b.max.x, b.min.y), b.max, Vec2::new(b.min.x, b.max.y)];
        if options.tree_nodes {
            self.tree.for_each_node(|b, depth, _| {
                if seen(&b) {
                    out.polyline(&corners(&b), true, Role::TreeNode { depth });
                }
            });
        }
        let live = || (0..self.cols.alive.len()).filter(|&s| self.cols.alive[s]);
        if options.colliders || options.tight_boxes {
            for s in live() {
                let (shape, pose) = (&self.cols.shape[s], &self.cols.pose[s]);
                let tight = shape.aabb(pose);
                if !seen(&tight) {
                    continue;
                }
                if options.colliders {
                    let f = self.cols.flags[s];
                    let style = ColliderStyle {
                        id: self.cols.id(ColliderSlot::from_index(s)),
                        kind: shape.kind(),
                        is_static: f & flags::STATIC != 0,
                        sensor: f & flags::SENSOR != 0,
                        bullet: f & flags::BULLET != 0,
                        disabled: f & flags::DISABLED != 0,
                    };
                    draw_shape(out, shape, pose, Role::Collider(style));
                }
                if options.tight_boxes {
                    out.polyline(&corners(&tight), true, Role::TightBox);
                }
            }
        }
        if options.fat_boxes {
            for s in live().filter(|&s| self.cols.is_placed(s)) {
                let fat = self.cols.fat[s];
                if seen(&fat) {
                    let in_tree = self.cols.flags[s] & flags::IN_TREE != 0;
                    out.polyline(&corners(&fat), true, Role::FatBox { in_tree });
                }
            }
        }
        if options.contacts {
            for c in &self.contacts {
                let n = c.manifold.normal;
                for p in c.manifold.points().iter().filter(|p| seen(&Aabb::from_points(p.point, p.point))) {
                    out.point(p.point, Role::ContactPoint);
                    out.segment(p.point, p.point + options.normal_length * n, Role::ContactNormal);
                    if p.depth > 0.0 {
                        let half = 0.5 * p.depth * n;
                        out.segment(p.point - half, p.point + half, Role::ContactDepth);
                    }
                }
            }
        }
        if options.impacts {
            for i in &self.impacts {
                if !seen(&Aabb::from_points(i.point, i.point)) {
                    continue;
                }
                out.point(i.point, Role::Impact);
                out.segment(i.point, i.point + options.normal_length * i.normal, Role::ImpactNormal);
                if let Some(s) = self.cols.slot(i.bullet) {
                    draw_shape(out, &self.cols.shape[s], &i.pose, Role::ImpactPose);
                }
            }
        }
    }
}
