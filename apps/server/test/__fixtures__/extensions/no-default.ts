/* A module without a factory. */
export const notAFactory = 42;
