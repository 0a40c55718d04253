import AjvCompiler from '@fastify/ajv-compiler';

type BuildValidator = ReturnType<typeof AjvCompiler>;
type RouteDefinition = { schema?: unknown; method?: string; url?: string; httpPart?: string };
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * Fastify's own validator compiler (@fastify/ajv-compiler, the one it uses by default, with the same options),
 * compiling each route's schema on the first request that needs it instead of at start.
 *
 * Why: Fastify compiles every route's body, query and params schema before the server is ready; with some 300
 * routes that was about 0.35 s of a 0.8 s start, and the compiled code stayed in memory for routes a node may never
 * serve (issue 39). The validation itself is unchanged: the same Ajv, options and schemas, called the same way.
 * `compileAll()` compiles what is still pending, so a test can prove every schema compiles (a broken schema
 * would otherwise only show on its route's first request).
 */
export class LazyValidators {
  private readonly pending = new Set<() => void>();
  private compiledCount = 0;

  constructor(private readonly base: BuildValidator = AjvCompiler()) {}

  /**
   * For Fastify's `schemaController.compilersFactory.buildValidator`. The compiler it returns is called with a
   * route definition (`{ schema, method, url, httpPart }`, as Fastify calls it), though @fastify/ajv-compiler's
   * type names a bare schema: hence the casts, here only.
   */
  readonly buildValidator: BuildValidator = (externalSchemas, options) => {
    let compiler: ((route: RouteDefinition) => Validate) | undefined;
    // The Ajv instance itself (and its meta-schema) is made on the first compile too.
    const compile = (route: RouteDefinition) => (compiler ??= this.base(externalSchemas, options) as unknown as (route: RouteDefinition) => Validate)(route);
    const lazyCompiler = (route: RouteDefinition) => this.lazy(route.httpPart === 'headers' ? lowerCaseHeaders(route) : route, compile);
    return lazyCompiler as unknown as ReturnType<BuildValidator>;
  };

  /** How many route schemas were compiled so far. */
  get compiled(): number {
    return this.compiledCount;
  }

  /** Compiles every schema not compiled yet (throws on the first that does not compile). */
  compileAll(): void {
    for (const compile of [...this.pending]) compile();
  }

  private lazy(route: RouteDefinition, compile: (route: RouteDefinition) => Validate): Validate {
    let real: Validate | undefined;
    const ensure = () => {
      if (real) return real;
      real = compile(route);
      this.pending.delete(ensure);
      this.compiledCount++;
      return real;
    };
    this.pending.add(ensure);
    const validate: Validate = (data, context) => {
      const fn = ensure();
      const result = fn(data, context);
      // Fastify reads a failure's reasons from the function it called.
      validate.errors = fn.errors;
      return result;
    };
    // Fastify passes the parent object (so Ajv's defaults can fill a missing root) only to a function with a
    // schemaEnv, as Ajv's compiled functions have.
    validate.schemaEnv = true;
    return validate;
  }
}

/**
 * Header names are case-insensitive: Fastify lower-cases a header schema's names itself, but only for its
 * default compiler, so this one does the same.
 */
function lowerCaseHeaders(route: RouteDefinition): RouteDefinition {
  const schema = route.schema;
  if (typeof schema !== 'object' || schema === null || Object.getPrototypeOf(schema) !== Object.prototype) return route;
  const copy: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  if (Array.isArray(copy.required)) copy.required = copy.required.map((name: string) => name.toLowerCase());
  if (typeof copy.properties === 'object' && copy.properties !== null) {
    copy.properties = Object.fromEntries(Object.entries(copy.properties).map(([name, value]) => [name.toLowerCase(), value]));
  }
  return { ...route, schema: copy };
}
