package dev.custody.spark;

import dev.custody.engine.architecture.ModuleArchitectureTest;

/**
 * The spark module's packages have no cycle, and none of its classes uses an {@code internal} package of
 * engine-core (docs/design.md §9.1): the rules of engine-core's {@link ModuleArchitectureTest}, over this module's
 * classes.
 */
class ArchitectureTest extends ModuleArchitectureTest {
}
