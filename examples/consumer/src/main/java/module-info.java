/**
 * A service's module: it requires the engine by its module name and sees only what the engine exports to every
 * module. Built and tested on the module path (its test runs inside this module).
 */
module com.example.consumer {
    requires dev.custody.engine;

    exports com.example.consumer;
}
