package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelBuilder;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelOptions;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.parser.CelStandardMacro;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the CEL environment of one trigger action: each section of the action is a variable of a
 * struct type whose fields come from {@link FieldSchema}, so the checker rejects unknown fields and
 * type errors at compile time with their position. At run time the sections are plain maps (CEL selects
 * a map's key the way it selects a struct's field), which is what the {@link dev.custody.engine.check.Payload} holds.
 */
final class CelEnvironment {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    /** Prefix of the struct type names, e.g. {@code custody.Withdrawal}. */
    static final String TYPE_PREFIX = "custody.";

    private CelEnvironment() {}

    static CelOptions options(int comprehensionMaxIterations, int maxRegexProgramSize) {
        return CelOptions.current()
                .enableHeterogeneousNumericComparisons(true)
                .comprehensionMaxIterations(comprehensionMaxIterations)
                .maxRegexProgramSize(maxRegexProgramSize)
                .maxExpressionCodePointSize(dev.custody.engine.schema.Limits.CONDITION_MAX)
                .populateMacroCalls(false)
                .build();
    }

    static Cel build(TriggerAction action, CelOptions options) {
        Map<String, CelType> types = new LinkedHashMap<>();
        CelBuilder builder = CelFactory.standardCelBuilder()
                .setOptions(options)
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .setResultType(SimpleType.BOOL);
        for (Section section : FieldSchema.sections(action)) {
            StructType type = structOf(section);
            types.put(type.name(), type);
            builder.addVar(section.wireName(), type);
        }
        ImmutableList<CelType> all = ImmutableList.copyOf(types.values());
        builder.setTypeProvider(new CelTypeProvider() {
            @Override
            public ImmutableCollection<CelType> types() {
                return all;
            }

            @Override
            public Optional<CelType> findType(String typeName) {
                return Optional.ofNullable(types.get(typeName));
            }
        });
        return builder.build();
    }

    static String typeName(Section section) {
        String w = section.wireName();
        return TYPE_PREFIX + Character.toUpperCase(w.charAt(0)) + w.substring(1);
    }

    private static StructType structOf(Section section) {
        Map<String, CelType> fields = new HashMap<>();
        List<FieldSpec> specs = FieldSchema.fields(section);
        ImmutableSet.Builder<String> names = ImmutableSet.builder();
        for (FieldSpec f : specs) {
            fields.put(f.name(), celType(f.type()));
            names.add(f.name());
        }
        return StructType.create(typeName(section), names.build(), name -> Optional.ofNullable(fields.get(name)));
    }

    static CelType celType(FieldType type) {
        return switch (type) {
            case STRING -> SimpleType.STRING;
            case NUMBER -> SimpleType.DOUBLE;
            case INTEGER -> SimpleType.INT;
            case BOOLEAN -> SimpleType.BOOL;
            case MAP -> MapType.create(SimpleType.STRING, SimpleType.DYN);
        };
    }
}
