/**
 * The engine a service embeds, and the way to it: {@link dev.custody.engine.PolicyEngine} decides actions of a
 * workspace, fail-closed, over a {@link dev.custody.engine.PolicySource} (a database, the custody API, or
 * {@link dev.custody.engine.files.FilePolicySource} over policy files), caching one compiled bundle per workspace.
 * Every verb of the {@code custody} tool and the conformance corpus decide through it (docs/design.md §2, §3).
 */
package dev.custody.engine;
