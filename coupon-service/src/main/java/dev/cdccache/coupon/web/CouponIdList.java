package dev.cdccache.coupon.web;

import dev.cdccache.coupon.problem.ApiProblem;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Parses the {@code ids} query parameter of the bulk lookup: comma-separated positive ids, capped. */
final class CouponIdList {

    private CouponIdList() {
    }

    /**
     * The distinct ids in their first-seen order.
     *
     * @throws ApiProblem 400 naming the offending token, or the cap, when the list is not acceptable
     */
    static List<Long> parse(String raw, int maxIds) {
        if (raw == null || raw.isBlank()) {
            throw ApiProblem.badRequest("query parameter 'ids' is required: a comma-separated list of at most "
                    + maxIds + " coupon ids, e.g. ids=1,2,3");
        }
        String[] tokens = raw.split(",", -1);
        if (tokens.length > maxIds) {
            throw ApiProblem.badRequest("at most " + maxIds + " ids may be asked for at once; got " + tokens.length);
        }
        Set<Long> ids = new LinkedHashSet<>();
        for (String token : tokens) {
            ids.add(parseId(token.strip()));
        }
        return List.copyOf(ids);
    }

    private static long parseId(String token) {
        if (token.isEmpty()) {
            throw ApiProblem.badRequest("'ids' contains an empty entry; expected comma-separated positive integers");
        }
        long id;
        try {
            id = Long.parseLong(token);
        } catch (NumberFormatException e) {
            throw ApiProblem.badRequest("'" + abbreviate(token) + "' in 'ids' is not a coupon id (a positive integer)");
        }
        if (id <= 0) {
            throw ApiProblem.badRequest("'" + token + "' in 'ids' is not a coupon id (a positive integer)");
        }
        return id;
    }

    private static String abbreviate(String token) {
        return token.length() <= 40 ? token : token.substring(0, 40) + "...";
    }
}
