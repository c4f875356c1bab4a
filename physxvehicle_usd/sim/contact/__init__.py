"""Contacts of the vehicles' own collision shapes with the static world, as PhysX generates them for its solver.

Every vehicle shape the simulator collides is a convex polytope (read/collision.py: boxes, 30-corner cylinder hulls,
convex-hull meshes) or a sphere or capsule (a core, its centre or segment, with a radius), met against planes, static
convex polytopes (boxes, hulls) and the triangles of static meshes here, and against static spheres and capsules in
round_shapes.py (the static round shapes come last among the static columns). omni.physx gives PhysX a
UsdGeom.Cylinder as the exact cylinder (PxConvexCoreGeometry; its approximateCylinders setting is off by default):
against a plane, a mesh's triangles, every static convex (boxes, hulls, spheres, capsules) and other vehicles' shapes
it is met exactly (plane.py, cylinder.py with cylinder_faces.py and gjk_epa.py, pairs.py); its hull serves the broad
phases and the suspension queries.
`ContactModel` (model.py) holds the shapes as padded arrays, one row per vehicle shape (its vehicle, points, faces,
edges, offsets, material) and one per static polytope; `generate` (world.py) finds each step's contacts from the pose
the step begins with (PhysX's narrow phase runs before its solver, on the poses the vehicle update left unchanged). A
shape under a wheel attachment follows its wheel, as omni.physx moves it (PxVehicleWriteWheelLocalPoseToPhysXWheelShape,
at the end of the vehicle update, before the scene's narrow phase): `ContactModel.posed` puts it at the wheel's local
pose of the step (suspension, steer, compliance, rotation about the axle).

What is made, per pair of shapes whose distance is below the sum of their contact offsets (PhysX's contact distance):
  boxes       a box against a plane or a static box: PhysX PCM's points in PhysX's order (box.py; checked
              against the contacts ovphysx reports for the ridge, curb and drop runs: the same points, order and
              separations);
  plane       every vertex of the polytope closer to the plane than the contact distance;
  polytope    separating axes (the faces of either shape, and the cross products of their edges); on a face axis the
              face of the other shape most opposed to it (the incident face) clipped against the reference face's
              sides, the points kept where closer than the contact distance; on an edge axis, the closest points of
              the two edges. A triangle is single-sided: only contacts pushing the shape to its front side are kept;
              where a face of the vehicle's shape is the axis but lies within 45 degrees of facing the triangle, the
              triangle is the reference face (PCM's convex-triangle rule: a hull sliding over a ramp's crest meets it
              along the ramp's normal), its points on the triangle, a triangle vertex separated as PCM measures it.
              The points come in PCM's order (it decides the friction anchors and the solver's sweep): the
              incident face's corners inside, the reference's inside the incident face, then the edge crossings,
              against a mesh the triangle's edges outer and each loop from its closing edge; a box's face loops
              start at PCM's corners (polytopes.py `convex_polytope`). Checked against ovphysx's contacts on
              RolloverSlope's slope (its first strike and its roof landing: the same points in the same order, the same
              anchors).
  cylinder    against a plane, PhysX's convex-core contacts: its side's lowest line (two points) when its axis lies
              within 8 degrees of the plane, its cap's rim (four) within 8 degrees of the normal, else its deepest
              point; the points halfway between the cylinder and the plane; against a mesh's triangles, PhysX's
              convex-core mesh contacts (cylinder_faces.py: per triangle its GJK/EPA axis and witnesses, the
              cylinder's and the triangle's faces clipped, the mesh's points gathered into patches of four);
              against a static box, hull, sphere or capsule, PhysX's convex-core convex contacts (the same, the
              box as its box core, a hull as its points, a sphere or capsule as its point or segment core with its
              radius the margin, both poses less their midpoint: one patch of at most four);
  round       a sphere or capsule as its core with the contact distance grown by its radius: against a plane its
              centre or each end of its segment (PhysX's one and two points); against a polytope or triangle the
              core clipped by the reference face as above, or, where no point of it lies over that face, the nearest
              points of the core and the face's rim; the separation less the radius, the point on the round surface
              (but a sphere's against a box: on the box, PhysX's sphere-box point;
              `round_shapes.sphere_points_on_boxes`).
A point made twice in one patch (two triangles' shared edge) counts once. Then at most four points per pair and
normal (PhysX's manifold size; six kept whole for a convex shape on a triangle mesh, a patch of PCM's multi-manifold):
the deepest, the one farthest from it, the one making the largest triangle with them, and the one farthest outside
that triangle. The hull-on-hump run's contacts at its strike (step 27) are the ones
ovphysx reports: the same points, normals and separations.

Candidate pairs come from boxes: a vehicle whose shapes' boxes (grown by the contact distance) reach no static
shape costs one box test per plane and nothing else; the triangles a box reaches come from the ground's TriangleGrid
(broad.py).

The solver's friction patches persist as PhysX's low-level dynamics keeps them (patches.py `patch_rows`, records.py
`FrictionPatches`): a patch's anchors stay where they were made while its friction holds and its normal and anchors stay
correlated.

Contacts between vehicles (pairs.py) reuse the polytope test, the manifold reduction and the friction
patches (`patches.friction_patches`, body 1 the other vehicle).

PCM (persistent contact manifolds, omni.physx's default) keeps a pair's points from step to step while the shapes
have moved little against each other, re-measuring their separations: persistence.py does so for boxes and hulls
against planes, triangle meshes, static boxes and hulls and static capsules, and for capsules against static boxes
(world.py `generate` with the vehicles' length scales and the last step's manifolds), and between vehicles two boxes
(pairs.py); the other pairs are made anew every step.

Approximations against PhysX: PCM's deferred triangle contacts (a hull face more than 45 degrees from facing a
triangle) are not reproduced. The full clipped face is reduced to four points (six on a mesh), where PCM reduces each
triangle's points to five before merging a patch's; a mesh patch of more than six is reduced to four here (PCM: to
six). PCM's mesh contacts pass through its edge filtering, here a triangle contact whose normal turns against the
triangle's front is dropped.

The package, bottom up (a module imports only those above it; the records and the model are what the rest share):
  records.py          the typed records: a step's `Contacts`; what persists per vehicle (`VehicleRecords`:
                      `FrictionPatches`, the manifolds, `PairManifolds`). The solver's rows these contacts become
                      (`PatchRows`, `PairRows`) are sim/solver_rows.py's, beside the vehicle's `ConstraintRows`
  geometry.py         small rules the narrow phases share (closest points of segments, PhysX's float constants)
  box.py              PhysX's box-plane and box-box points (`Boxes`, `box_box`)
  polytopes.py        convex polytopes as padded rows (`Polytope`, `Polytopes`), hulls, placed static shapes
  model.py            `ContactModel`, `PairModel`, `StaticRounds`: built once from the resolved description (the only
                      module here that reads it), the pairs' combined materials and filtering
  placement.py        where the model's shapes stand at a step's poses (boxes, vertices, cylinder ends)
  broad.py            candidate pairs: shapes against planes, static shapes and triangles; vehicles against vehicles
  separating_axes.py  polytope against polytope or triangle: separating axes, face clipping, edge contacts
  reduction.py        a patch's points reduced to PhysX's four (six on a mesh)
  plane.py            shapes against planes (the exact cylinder's convex-core points among them)
  gjk_epa.py          GJK distance and EPA depth of convex cores (cylinder, box, points, segment)
  cylinder_faces.py   the exact cylinder's faces clipped against a triangle's or another core's
  cylinder.py         the model's cylinder rows met by cylinder_faces.py against meshes and static convexes
  round_shapes.py     spheres and capsules: static ones against the vehicles' shapes, sphere points on boxes
  persistence.py      PCM's persistent manifolds: kept points re-measured while the shapes have moved little
  world.py            `generate`: a step's contacts with the static world, every narrow phase above in turn
  pairs.py            `generate` between vehicles: a step's contacts of two vehicles' shapes
  patches.py          friction patches kept from step to step, and the contacts as the solver's rows
  telemetry.py        the contact telemetry a step reports
"""
