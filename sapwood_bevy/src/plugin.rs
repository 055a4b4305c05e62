//! [`SapwoodPlugin`]: the resource, the messages and the systems, in the schedule chosen.

use bevy_app::{App, FixedPostUpdate, Plugin};
use bevy_ecs::schedule::{InternedScheduleLabel, IntoScheduleConfigs, ScheduleLabel, SystemSet};
use bevy_transform::TransformSystems;
use bevy_transform::systems::{mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms};
use sapwood::WorldConfig;

use crate::messages::{
    BulletImpact, CollisionEnded, CollisionStarted, SensorEntered, SensorExited, step_world, write_messages,
};
use crate::resource::SapwoodWorld;
use crate::sync::sync_colliders;
use crate::transform::ColliderRefused;

/// Adds a [`SapwoodWorld`] and keeps it in step with the entities' colliders: each run of the
/// plugin's schedule (by default [`FixedPostUpdate`], once per fixed timestep) propagates the
/// transforms, syncs the colliders, steps the world and writes its messages, in that order
/// (the [`SapwoodSystems`] sets).
///
/// The game moves its entities' `Transform`s in [`FixedUpdate`](bevy_app::FixedUpdate) (or
/// earlier), and reads the messages and contacts in a system after
/// [`SapwoodSystems::Messages`], or in [`Update`](bevy_app::Update).
///
/// Needs [`TransformPlugin`](bevy_transform::TransformPlugin) for the global transforms, and
/// something that runs the schedule: in a full Bevy app, `TimePlugin` runs the fixed schedules.
#[derive(Clone, Debug)]
pub struct SapwoodPlugin {
    /// The world's config (the broad phase, margins, welding, sensor rules).
    pub config: WorldConfig,
    /// The schedule the world steps in. Default: [`FixedPostUpdate`], so that collision runs at
    /// the fixed rate of the game's fixed-step logic, after it.
    pub schedule: InternedScheduleLabel,
    /// Whether the plugin propagates transforms itself before the sync ([`SapwoodSystems::Propagate`]).
    /// Bevy propagates them only in `PostUpdate`, after the fixed schedules of the frame, so a
    /// step in a fixed schedule would otherwise see the poses of the frame before. Default:
    /// `true`. Turn it off when stepping in `PostUpdate` (the sync then runs after Bevy's own
    /// [`TransformSystems::Propagate`]), or when the game propagates in the schedule itself.
    pub propagate_transforms: bool,
}

impl Default for SapwoodPlugin {
    fn default() -> Self {
        Self { config: WorldConfig::default(), schedule: FixedPostUpdate.intern(), propagate_transforms: true }
    }
}

impl SapwoodPlugin {
    /// The default plugin with a world config.
    #[must_use]
    pub fn with_config(config: WorldConfig) -> Self {
        Self { config, ..Self::default() }
    }

    /// The same, stepping in `schedule`.
    #[must_use]
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }
}

/// The plugin's systems, in this order, each set in the plugin's schedule. Order a game's
/// systems against them: read the messages `.after(SapwoodSystems::Messages)`.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SapwoodSystems {
    /// Bevy's transform propagation, when [`SapwoodPlugin::propagate_transforms`] is on.
    Propagate,
    /// Colliders inserted, changed and removed after the entities.
    Sync,
    /// [`World::step`](sapwood::World::step).
    Step,
    /// The step's events and impacts written as messages.
    Messages,
}

impl Plugin for SapwoodPlugin {
    fn build(&self, app: &mut App) {
        let world = match SapwoodWorld::new(self.config) {
            Ok(w) => w,
            Err(e) => {
                log::error!("sapwood_bevy: invalid WorldConfig ({e}); using the default config");
                SapwoodWorld::new(WorldConfig::default()).unwrap_or_else(|_| unreachable!("the default is valid"))
            }
        };
        app.insert_resource(world)
            .add_message::<CollisionStarted>()
            .add_message::<CollisionEnded>()
            .add_message::<SensorEntered>()
            .add_message::<SensorExited>()
            .add_message::<BulletImpact>()
            .add_message::<ColliderRefused>()
            .configure_sets(
                self.schedule,
                (SapwoodSystems::Propagate, SapwoodSystems::Sync, SapwoodSystems::Step, SapwoodSystems::Messages)
                    .chain()
                    .after(TransformSystems::Propagate),
            )
            .add_systems(
                self.schedule,
                (
                    sync_colliders.in_set(SapwoodSystems::Sync),
                    step_world.in_set(SapwoodSystems::Step),
                    write_messages.in_set(SapwoodSystems::Messages),
                ),
            );
        if self.propagate_transforms {
            app.add_systems(
                self.schedule,
                (mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms)
                    .chain()
                    .in_set(SapwoodSystems::Propagate),
            );
        }
    }
}
