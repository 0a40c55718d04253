import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type BuildSerializer = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<BuildSerializer>>;

/**
 * Fastify's own response serializer compiler (@fastify/fast-json-stringify-compiler, its default, same options),
 * compiling a route's response schema on the first answer that needs it instead of at start: the one route with a
 * response schema (the audit trail) cost 20 ms of every start (issue 39). The serializer itself is unchanged.
 */
export class LazySerializers {
  private compiledCount = 0;

  constructor(private readonly base: BuildSerializer = SerializerSelector()) {}

  /** For Fastify's `schemaController.compilersFactory.buildSerializer`. */
  readonly buildSerializer: BuildSerializer = (externalSchemas, options) => {
    let compiler: ReturnType<BuildSerializer> | undefined;
    return (route) => {
      let serialize: Serializer | undefined;
      return (document) => {
        if (!serialize) {
          serialize = (compiler ??= this.base(externalSchemas, options))(route);
          this.compiledCount++;
        }
        return serialize(document);
      };
    };
  };

  /** How many response schemas were compiled so far. */
  get compiled(): number {
    return this.compiledCount;
  }
}
