package dev.cdccache.coupon.generator;

/**
 * How much data {@link CouponDataGenerator} writes.
 *
 * @param places              number of places (ids 1..places)
 * @param coupons             number of coupons (ids 1..coupons), spread round-robin over the places
 * @param attributesPerCoupon attribute rows per coupon
 * @param seed                seed of the pseudo-random values, so two runs produce the same data
 */
public record GenerationPlan(int places, int coupons, int attributesPerCoupon, long seed) {

    /** The volume the issue asks for: 2,000 places, 100,000 coupons, 5 attributes each. */
    public static final GenerationPlan FULL = new GenerationPlan(2_000, 100_000, 5, 42);
    /** A quick data set for tests and smoke runs. */
    public static final GenerationPlan SMALL = new GenerationPlan(20, 500, 5, 42);

    public GenerationPlan {
        if (places < 1 || coupons < 0 || attributesPerCoupon < 0) {
            throw new IllegalArgumentException("a plan needs at least one place and no negative counts: "
                    + places + " places, " + coupons + " coupons, " + attributesPerCoupon + " attributes per coupon");
        }
    }

    /**
     * Parses {@code full}, {@code small} or {@code PLACES:COUPONS[:ATTRIBUTES]} (e.g. {@code 200:10000:5}).
     *
     * @throws IllegalArgumentException with the accepted forms when {@code text} is none of them
     */
    public static GenerationPlan parse(String text) {
        String value = text == null ? "" : text.strip();
        if (value.equalsIgnoreCase("full") || value.equalsIgnoreCase("true") || value.isEmpty()) {
            return FULL;
        }
        if (value.equalsIgnoreCase("small")) {
            return SMALL;
        }
        String[] parts = value.split(":");
        try {
            if (parts.length == 2 || parts.length == 3) {
                return new GenerationPlan(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]),
                        parts.length == 3 ? Integer.parseInt(parts[2]) : 5, 42);
            }
        } catch (NumberFormatException e) {
            // fall through to the explanation below
        }
        throw new IllegalArgumentException("coupon.generate must be 'full', 'small' or PLACES:COUPONS[:ATTRIBUTES]"
                + " (e.g. 200:10000:5); got '" + text + "'");
    }
}
