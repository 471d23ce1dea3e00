package dev.cdccache.bench.mix;

import dev.cdccache.bench.mix.RequestMix.Variable;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An endless Gatling feeder of the {@link RequestMix#variables() variables} of a request mix: each record holds a
 * fresh random value of every variable. (The CSV files are fed by Gatling's own CSV feeder.) Thread-safe.
 */
public final class RequestFeeder implements Iterator<Map<String, Object>> {

    private final RequestMix mix;

    public RequestFeeder(RequestMix mix) {
        this.mix = mix;
    }

    @Override
    public boolean hasNext() {
        return true;
    }

    @Override
    public Map<String, Object> next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        Map<String, Object> values = new HashMap<>();
        for (Variable v : mix.variables()) {
            if (v.isList()) {
                int count = random.nextInt(v.countMin(), v.countMax() + 1);
                StringJoiner list = new StringJoiner(",");
                for (int i = 0; i < count; i++) {
                    list.add(String.valueOf(value(v, random)));
                }
                values.put(v.name(), list.toString());
            } else {
                values.put(v.name(), value(v, random));
            }
        }
        return values;
    }

    private static Object value(Variable v, ThreadLocalRandom random) {
        long n = v.max() == Long.MAX_VALUE ? random.nextLong(v.min(), v.max()) : random.nextLong(v.min(), v.max() + 1);
        return v.format() == null ? (Object) n : String.format(Locale.ROOT, v.format(), n);
    }
}
