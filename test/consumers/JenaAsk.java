import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.jena.query.ARQ;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryExecutionFactory;
import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.ReadWrite;
import org.apache.jena.query.ResultSetFormatter;
import org.apache.jena.riot.RDFDataMgr;
import org.apache.jena.tdb2.TDB2;
import org.apache.jena.tdb2.TDB2Factory;

/**
 * Asks every query file given, in one JVM, of a TDB2 store as `tdb2.tdbquery --loc LOC --set
 * tdb:unionDefaultGraph=true --query FILE --results=JSON` asks one, or of an RDF file as
 * `arq.sparql --data DATA --query FILE --results=JSON` does: a JVM a query was most of the
 * consumer tests' time. Each answer is written beside its query, FILE.json, or the first line of
 * its error, FILE.error.
 *
 * java -cp JENA JenaAsk.java LOC|DATA FILE...
 */
public class JenaAsk {
  public static void main(String[] args) throws Exception {
    ARQ.getContext().set(TDB2.symUnionDefaultGraph, true);
    Dataset dataset = Files.isDirectory(Path.of(args[0])) ? TDB2Factory.connectDataset(args[0]) : RDFDataMgr.loadDataset(args[0]);
    for (int i = 1; i < args.length; i++) {
      Path file = Path.of(args[i]);
      dataset.begin(ReadWrite.READ);
      try (QueryExecution execution = QueryExecutionFactory.create(QueryFactory.create(Files.readString(file)), dataset)) {
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        ResultSetFormatter.outputAsJSON(json, execution.execSelect());
        Files.write(Path.of(args[i] + ".json"), json.toByteArray());
      } catch (Exception e) {
        Files.writeString(Path.of(args[i] + ".error"), String.valueOf(e.getMessage()).split("\n")[0], StandardCharsets.UTF_8);
      } finally {
        dataset.end();
      }
    }
  }
}
