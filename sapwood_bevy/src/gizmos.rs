//! Debug drawing with Bevy's gizmos (feature `gizmos`): [`World::debug_draw`](sapwood::World::debug_draw)
//! on a [`DebugDraw`] canvas that draws each primitive as gizmo lines, coloured by
//! [`Role::color`].

use std::f32::consts::PI;

use bevy_app::{App, Plugin, PostUpdate};
use bevy_color::Color;
use bevy_ecs::resource::Resource;
use bevy_ecs::system::{Local, Res};
use bevy_gizmos::gizmos::Gizmos;
use bevy_math::Isometry2d;
use sapwood::Vec2;
use sapwood::debug_draw::{DebugDraw, DebugDrawOptions, Role, rounded_outline};

use crate::resource::SapwoodWorld;
use crate::transform::to_bevy;

/// Draws the [`SapwoodWorld`] with gizmos every frame, in [`PostUpdate`], as
/// [`SapwoodGizmos`] says. Needs Bevy's `GizmoPlugin` (part of `DefaultPlugins`) and the
/// [`SapwoodPlugin`](crate::SapwoodPlugin).
#[derive(Clone, Copy, Debug, Default)]
pub struct SapwoodGizmosPlugin;

/// What the gizmos show (a resource; change it at run time). Default: the colliders, the
/// contacts with their normals and the impacts, not the boxes.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct SapwoodGizmos {
    /// Whether anything is drawn.
    pub enabled: bool,
    /// Which parts of the world are drawn (see [`DebugDrawOptions`]: colliders, tight and fat
    /// boxes, the static tree, contacts and normals, impacts).
    pub options: DebugDrawOptions,
    /// The size of a point mark (a contact point, an impact), in world units.
    pub point_size: f32,
}

impl Default for SapwoodGizmos {
    fn default() -> Self {
        Self { enabled: true, options: DebugDrawOptions::default(), point_size: 0.1 }
    }
}

impl Plugin for SapwoodGizmosPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SapwoodGizmos>().add_systems(PostUpdate, draw_world);
    }
}

/// Segments per half turn of a capsule's or a rounded polygon's end.
const ARC_STEPS: usize = 8;

fn draw_world(
    sapwood: Option<Res<SapwoodWorld>>,
    settings: Res<SapwoodGizmos>,
    mut gizmos: Gizmos,
    mut outline: Local<Vec<Vec2>>,
) {
    let Some(sapwood) = sapwood else { return };
    if settings.enabled {
        let mut canvas = GizmoCanvas { gizmos: &mut gizmos, outline: &mut outline, point_size: settings.point_size };
        sapwood.world().debug_draw(&mut canvas, &settings.options);
    }
}

/// A [`DebugDraw`] over Bevy's gizmos: draw a world on it with
/// [`World::debug_draw`](sapwood::World::debug_draw) in a system of your own (the
/// [`SapwoodGizmosPlugin`] does that for the plugin's world).
pub struct GizmoCanvas<'a, 'w, 's> {
    /// The gizmos drawn on.
    pub gizmos: &'a mut Gizmos<'w, 's>,
    /// A buffer for outlines, kept between frames so that drawing allocates nothing.
    pub outline: &'a mut Vec<Vec2>,
    /// The size of a point mark, in world units.
    pub point_size: f32,
}

fn color(role: Role) -> Color {
    let [r, g, b, a] = role.color();
    Color::srgba_u8(r, g, b, a)
}

impl DebugDraw for GizmoCanvas<'_, '_, '_> {
    fn circle(&mut self, center: Vec2, radius: f32, axis: Vec2, role: Role) {
        let c = color(role);
        self.gizmos.circle_2d(Isometry2d::from_translation(to_bevy(center)), radius, c);
        self.gizmos.line_2d(to_bevy(center), to_bevy(center + radius * axis), c);
    }

    fn capsule(&mut self, a: Vec2, b: Vec2, radius: f32, role: Role) {
        let d = (b - a).try_normalize().unwrap_or(Vec2::X);
        let n = d.perp();
        self.outline.clear();
        // Half a circle around each end, joined: b's from +n through +d to -n, then a's back.
        for (end, from, ahead) in [(b, n, d), (a, -n, -d)] {
            for i in 0..=ARC_STEPS {
                let (s, c) = (PI * i as f32 / ARC_STEPS as f32).sin_cos();
                self.outline.push(end + radius * (c * from + s * ahead));
            }
        }
        self.gizmos.lineloop_2d(self.outline.iter().map(|&p| to_bevy(p)), color(role));
    }

    fn polygon(&mut self, vertices: &[Vec2], radius: f32, role: Role) {
        let c = color(role);
        if radius > 0.0 {
            rounded_outline(vertices, radius, ARC_STEPS / 2, self.outline);
            self.gizmos.lineloop_2d(self.outline.iter().map(|&p| to_bevy(p)), c);
        } else {
            self.gizmos.lineloop_2d(vertices.iter().map(|&p| to_bevy(p)), c);
        }
    }

    fn segment(&mut self, a: Vec2, b: Vec2, role: Role) {
        self.gizmos.line_2d(to_bevy(a), to_bevy(b), color(role));
    }

    fn polyline(&mut self, points: &[Vec2], closed: bool, role: Role) {
        let points = points.iter().map(|&p| to_bevy(p));
        if closed {
            self.gizmos.lineloop_2d(points, color(role));
        } else {
            self.gizmos.linestrip_2d(points, color(role));
        }
    }

    fn point(&mut self, p: Vec2, role: Role) {
        let (c, h) = (color(role), 0.5 * self.point_size);
        self.gizmos.line_2d(to_bevy(p - Vec2::new(h, h)), to_bevy(p + Vec2::new(h, h)), c);
        self.gizmos.line_2d(to_bevy(p - Vec2::new(h, -h)), to_bevy(p + Vec2::new(h, -h)), c);
    }
}
