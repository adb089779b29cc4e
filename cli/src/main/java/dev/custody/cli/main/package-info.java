/**
 * The root of {@code custody}: the command that lists the verbs, {@code main}, the error handler that maps
 * failures to exit codes 2 and 3, and the completion-script generator. Nothing else depends on this package.
 */
package dev.custody.cli.main;
